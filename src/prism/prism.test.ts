import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractInUse } from "../contract/index.ts";
import { freePort } from "../mock/node/listen.ts";
import { loadSeed } from "../mock/seed.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { prismDocument } from "./document.ts";

describe("the document Prism serves", () => {
  const contract = contractInUse();
  const seed = loadSeed(contract);
  const doc = prismDocument(contract, seed.objects, ["1", "18"], "http://BusinessAdmin.Mock.API/Web/WebApi/*");

  it("has every path under each version, in both spellings", () => {
    const paths = Object.keys(doc.paths);
    expect(paths).toHaveLength(Object.keys(contract.doc.paths).length * 4);
    expect(paths).toContain("/v1/api/{database_id}/Customer/{customer_id}");
    expect(paths).toContain("/V18/OAuth/Token");
  });

  it("answers with the seed's customers, which fit the contract", () => {
    const example = (doc.paths["/v1/api/{database_id}/Customer/{customer_id}"] as any).get.responses["200"].content[
      "application/json"
    ].example;
    expect(example.Name).toBe("Bakkerij De Korenaar B.V.");
    expect(contract.answers.check("Customer", example)).toEqual([]);
  });

  it("leaves the contract itself untouched", () => {
    expect(Object.keys(contract.doc.paths)).toContain("/api/{database_id}/CustomerInfoList");
  });
});

describe("bawa prism", () => {
  let prism: ChildProcess;
  let base: string;
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    prism = spawn(process.execPath, [resolve(PROJECT_ROOT, "bin/bawa.js"), "prism", "--port", String(port)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    await new Promise<void>((done, fail) => {
      let out = "";
      const onData = (d: Buffer) => {
        out += d;
        if (/Prism is listening/.test(out)) done();
      };
      prism.stdout!.on("data", onData);
      prism.stderr!.on("data", onData);
      prism.on("exit", (code) => fail(new Error(`prism exited with ${code}: ${out}`)));
    });
  }, 60_000);
  afterAll(() => {
    prism?.kill("SIGTERM");
  });

  it.each(["v1", "V1"])("answers /%s paths from the seed examples", async (v) => {
    const res = await fetch(`${base}/${v}/api/DEMO/Customer/1001`, { headers: { authorization: "Bearer anything" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { Name: string }).Name).toBe("Bakkerij De Korenaar B.V.");
  });

  it("asks for a token, and knows no unversioned path", async () => {
    expect((await fetch(`${base}/v1/api/DEMO/CustomerInfoList`)).status).toBe(401);
    expect((await fetch(`${base}/api/DEMO/CustomerInfoList`, { headers: { authorization: "Bearer x" } })).status).toBe(
      404,
    );
  });
});
