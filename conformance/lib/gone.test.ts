// When the suite takes a target for gone: a page of the screens that did not load counts only
// while the target's own address does not answer either. Through bawa proxy, every walk whose
// redirect went to a client's redirect URI where nothing listens failed to load in the browser,
// and three of them took a proxy that answered every request for gone (npm test, 2026-11-30).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { targetDown } from "./gone.ts";
import { type Api, NO_ANSWER_LIMIT, pageNotLoaded } from "./http.ts";

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function target(): Promise<Api> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    readOnly: false,
    retries: { times: 0, maxWaitSeconds: 0 },
    timeoutMs: 2_000,
    maxAnswerBytes: 1024,
  } as Api;
}

describe("a page of the screens that did not load", () => {
  it("does not take a target that answers for gone, however often", async () => {
    const api = await target();
    for (let i = 0; i < NO_ANSWER_LIMIT + 2; i++)
      await pageNotLoaded(api, "the authorization page did not load: net::ERR_CONNECTION_REFUSED");
    expect(targetDown(api.baseUrl)).toBeUndefined();
  });

  it("takes a target whose address does not answer either for gone, saying why", async () => {
    const api = await target();
    await new Promise((done) => servers.at(-1)!.close(done));
    await pageNotLoaded(api, "the authorization page did not load: net::ERR_CONNECTION_REFUSED");
    expect(targetDown(api.baseUrl)).toMatch(
      /^at \S+Z: a request got no answer \(the authorization page did not load: net::ERR_CONNECTION_REFUSED\), and http:\/\/127\.0\.0\.1:\d+\/v1 did not answer either/,
    );
  });
});
