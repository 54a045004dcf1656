// `bawa conformance` against targets that answer slowly, never, or without
// end, and cut short by a CI's timeout: every request is bounded, a target
// that stopped answering is not waited for again, and a cut run still writes
// its reports, marked as cut.
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TARGET_DOWN } from "../../conformance/lib/requirements.ts";
import { conformanceHarness, passOn, runBawa } from "./conformance-testing.ts";

const h = conformanceHarness();

/** A server on port 0; `close` also ends the requests it holds. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  const server: Server = createServer(handle);
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/**
 * A target whose address answers at once and whose every other call is held, never answered:
 * an API behind a gateway that stopped forwarding. Counts the calls it holds.
 */
async function hangingTarget() {
  const held: string[] = [];
  const target = await serve((req, res) => {
    if (req.url === "/") {
      res.end("up");
      return;
    }
    held.push(`${req.method} ${req.url}`);
  });
  return { ...target, held };
}

type Summary = {
  verdict: string;
  interrupted: boolean;
  because: string[];
  failures: Array<{ row: string; error: string }>;
  missingSettings: string[];
  requirements: Array<{ row: string; verdict: string; checks: Array<{ status: string; reason?: string }> }>;
};
const summaryOf = (output: string): Summary => JSON.parse(readFileSync(join(h.dir, output, "summary.json"), "utf8"));

describe("bawa conformance: bounded waiting", () => {
  it("a target that stops answering is given up after a few requests, each bounded by CONFORMANCE_REQUEST_TIMEOUT", async () => {
    const target = await hangingTarget();
    try {
      const run = await h.bawa(["--output", "hanging"], {
        ...h.settings,
        CONFORMANCE_BASE_URL: target.url,
        CONFORMANCE_REQUEST_TIMEOUT: "1",
      });
      expect(run.code, run.out).toBe(1);
      // The start's two probes of the API's paths (each waits out the timeout, then the run goes
      // on), then three requests in a row without an answer, then none: not one per check.
      expect(target.held.length, target.held.join("\n")).toBeLessThanOrEqual(6);
      const s = summaryOf("hanging");
      expect(s.verdict).toBe("failed");
      expect(s.because.join("; ")).toMatch(
        new RegExp(
          `the target at ${target.url} stopped answering \\(at [0-9T:-]+Z, during "[^"]+": 3 requests in a row got no answer; the last: [A-Z]+ /\\S+: no answer within 1 s, the limit CONFORMANCE_REQUEST_TIMEOUT sets\\): \\d+ checks were not checked`,
        ),
      );
      const notRun = s.requirements.filter((r) => r.checks.some((c) => c.reason?.startsWith(TARGET_DOWN)));
      expect(notRun.length).toBeGreaterThan(50);
      for (const r of notRun) expect(r.verdict, r.row).toBe("not checked");
      expect(s.missingSettings).not.toContain("CONFORMANCE_REQUEST_TIMEOUT");
      // Said once in the matrix's lines, not once per requirement.
      expect(run.out.match(/requirements not checked: the target stopped answering/g)).toHaveLength(1);
    } finally {
      target.close();
    }
  }, 120_000);

  it.each([
    ["a request of a check", "gone-request", (_: IncomingMessage) => true],
    // The login form sent: the browser is left on its own error page, mid-walk.
    [
      "a page of the login screens",
      "gone-screens",
      (req: IncomingMessage) => req.method === "POST" && /\/OAuth\//i.test(req.url ?? ""),
    ],
  ])(
    "a target that stops answering at %s is said once, with its address and when; what it left is not checked",
    async (_, output, at) => {
      // The mock behind a gateway that goes away after some requests, as a test environment that
      // restarts: every later request finds nothing listening, at its address too.
      let passed = 0;
      const gateway = await serve((req, res) => {
        if (req.url !== "/" && ++passed >= 40 && at(req)) {
          gateway.close();
          return;
        }
        passOn(req, res, h.url);
      });
      try {
        const run = await h.bawa(["--output", output], { ...h.settings, CONFORMANCE_BASE_URL: gateway.url });
        expect(run.code, run.out).toBe(1);
        const said = new RegExp(
          `the target at ${gateway.url} stopped answering \\(at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ(, (during|before) "[^"]+")?: `,
          "g",
        );
        expect(run.out.match(said), run.out).toHaveLength(1);
        // No stack trace or code frame of the suite's: the target's going is no failure of a check.
        expect(run.out).not.toMatch(/\bat .*\.js:\d+|^\s*>? *\d+ \|/m);
        expect(run.out).not.toMatch(/^ +[1-9]\d* (failed|interrupted)$/m);
        const s = summaryOf(output) as Summary & { stoppedAnswering?: string };
        expect(s.verdict).toBe("failed");
        expect(s.interrupted).toBe(false);
        expect(s.because).toHaveLength(1);
        expect(s.because[0]).toMatch(said);
        expect(s.stoppedAnswering).toMatch(/^at /);
        const left = s.requirements.filter((r) => r.checks.some((c) => c.reason?.startsWith(TARGET_DOWN)));
        expect(left.length).toBeGreaterThan(50);
        for (const r of left) expect(r.verdict, r.row).toBe("not checked");
        expect(s.requirements.filter((r) => r.verdict === "failed").map((r) => r.row)).toEqual([]);
        // JUnit alone fails the run too: one error, the target's, and no check failed.
        const junit = readFileSync(join(h.dir, output, "junit.xml"), "utf8");
        expect(/<testsuites [^>]*\berrors="1"/.test(junit), junit.slice(0, 300)).toBe(true);
        expect(/<testsuites [^>]*\bfailures="0"/.test(junit), junit.slice(0, 300)).toBe(true);
        expect(junit).toContain('<testcase name="the target answers until every check has ended"');
      } finally {
        gateway.close();
      }
    },
    120_000,
  );

  it("a target that never answers at all stops the run before it starts, naming the timeout", async () => {
    const target = await serve(() => undefined);
    try {
      const run = await h.bawa(["--output", "silent"], {
        ...h.settings,
        CONFORMANCE_BASE_URL: target.url,
        CONFORMANCE_REQUEST_TIMEOUT: "1",
      });
      expect(run.code, run.out).toBe(1);
      expect(run.out).toContain(
        `cannot reach the target at ${target.url}: no answer within 1 s (CONFORMANCE_REQUEST_TIMEOUT)`,
      );
    } finally {
      target.close();
    }
  }, 60_000);

  it("an answer over CONFORMANCE_MAX_ANSWER_BYTES fails its check naming the limit, read no further", async () => {
    // The mock behind a gateway that answers the list with a JSON array that never ends.
    let streamed = 0;
    const gateway = await serve((req, res) => {
      if (/CustomerInfoList/i.test(req.url ?? "")) {
        req.resume();
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
        const chunk = Buffer.from(`${'{"CustomerId":"1001","Name":"Endless"},'.repeat(1600)}`);
        res.write("[");
        const more = () => {
          while (!res.destroyed && res.write(chunk)) streamed += chunk.length;
        };
        res.on("drain", more);
        more();
        return;
      }
      passOn(req, res, h.url);
    });
    try {
      const run = await h.bawa(["--grep", "INFO-LIST", "--output", "endless"], {
        ...h.settings,
        CONFORMANCE_BASE_URL: gateway.url,
        CONFORMANCE_MAX_ANSWER_BYTES: String(1024 * 1024),
      });
      expect(run.code, run.out).toBe(1);
      const s = summaryOf("endless");
      const messages = [
        ...s.failures.map((f) => f.error),
        ...s.requirements.flatMap((r) => r.checks.map((c) => c.reason ?? "")),
      ];
      expect(messages.join("\n")).toMatch(
        /CustomerInfoList: the answer is larger than 1048576 bytes \(\d+ bytes read\), the limit CONFORMANCE_MAX_ANSWER_BYTES sets/,
      );
      // The answer never ends: a client that read it whole would still be reading.
      expect(streamed).toBeLessThan(64 * 1024 * 1024);
    } finally {
      gateway.close();
    }
  }, 120_000);

  it.each(["SIGTERM", "SIGINT"] as const)(
    "a run cut by %s writes its summary, matrix and JUnit, marked as cut, and exits 1",
    async (signal) => {
      const target = await hangingTarget();
      const output = `cut-${signal}`;
      try {
        let child: ChildProcess | undefined;
        const running = runBawa(["--output", output], {
          cwd: h.dir,
          env: { ...h.settings, CONFORMANCE_BASE_URL: target.url, CONFORMANCE_REQUEST_TIMEOUT: "60" },
          started: (c) => {
            child = c;
          },
        });
        // A check is under way once the target holds a request after the start's two probes.
        while (target.held.length < 3) await new Promise((r) => setTimeout(r, 100));
        child!.kill(signal);
        const run = await running;
        expect(run.code, run.out).toBe(1);
        expect(run.out).toContain(`bawa conformance: ${signal}: stopping the run`);
        for (const file of ["summary.json", "matrix.md", "matrix.html", "junit.xml"])
          expect(existsSync(join(h.dir, output, file)), file).toBe(true);
        const s = summaryOf(output);
        expect(s.verdict).toBe("failed");
        expect(s.interrupted).toBe(true);
        expect(s.because[0]).toMatch(
          new RegExp(`^the run was cut by ${signal} before every check ended \\(\\d+ did not run\\)$`),
        );
        expect(readFileSync(join(h.dir, output, "matrix.md"), "utf8")).toContain(`cut by ${signal}`);
      } finally {
        target.close();
      }
    },
    120_000,
  );
});
