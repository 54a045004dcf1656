// The data directory in process: what a crash, a full disk or a damaged file
// leaves behind, and what the next start makes of it. The crash under load
// (SIGKILL of a real process) is in persistence.test.ts.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { contractInUse } from "../../contract/index.ts";
import { type BawaMock, buildMock } from "../index.ts";
import { call, codeFlowTokens } from "../testing.ts";
import { DataDirError, JOURNAL_FILE, SNAPSHOT_FILE, type WriteOps } from "./data-dir.ts";

// The contract in use (BAWA_CONTRACT, else the project's): its editable resources, and a name it lacks.
const EDITABLE = contractInUse()
  .resources.collections.filter((c) => c.editable)
  .map((c) => c.name);
const ABSENT = ["Supplier", "Gadget", "Widget"].find((n) => !EDITABLE.includes(n))!;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const newDir = () => {
  const d = fs.mkdtempSync(join(tmpdir(), "bawa-datadir-"));
  dirs.push(d);
  return d;
};

/** A mock on `dir` (each start costs little: mocks share the process's compiled contract). */
function open(dir: string, extra: Parameters<typeof buildMock>[0] = {}): BawaMock {
  const warnings: string[] = [];
  const mock = buildMock({
    dataDir: dir,
    ...extra,
    dataDirOptions: { warn: (m) => warnings.push(m), ...extra.dataDirOptions },
  });
  return Object.assign(mock, { warnings });
}
const warningsOf = (m: BawaMock) => (m as BawaMock & { warnings: string[] }).warnings;

function session(mock: BawaMock) {
  const auth = { authorization: `Bearer ${codeFlowTokens(mock).access_token}`, "content-type": "application/json" };
  return {
    create: (Name: string) =>
      call(mock, "POST", "/v1/api/DEMO/Customer", { headers: auth, body: JSON.stringify({ Name }) }),
    names: () =>
      call(mock, "GET", "/v1/api/DEMO/CustomerInfoList", { headers: auth })
        .json<Array<{ Name: string }>>()
        .map((c) => c.Name),
  };
}
const closeAll = (...mocks: BawaMock[]) => {
  for (const m of mocks) m.dataDir?.close();
};

describe("a data directory after a crash", () => {
  it("cuts off a torn last line before appending, so the writes after it survive the next restart", () => {
    const dir = newDir();
    const one = open(dir);
    expect(session(one).create("Before the crash").status).toBe(200);
    closeAll(one);
    // A crash in the middle of a write: the line is there, its end is not.
    fs.appendFileSync(join(dir, JOURNAL_FILE), '{"op":"put","db":"DEMO","customer":{"CustomerId":"77","Na');

    const two = open(dir);
    expect(warningsOf(two).join()).toMatch(/cut off a torn last line of 57 bytes/);
    expect(session(two).create("After the crash").status).toBe(200);
    closeAll(two);

    const three = open(dir);
    expect(warningsOf(three)).toEqual([]);
    expect(session(three).names()).toEqual(expect.arrayContaining(["Before the crash", "After the crash"]));
    closeAll(three);
  });

  it("starts from the old snapshot and the whole journal when a compaction died before its rename", () => {
    const dir = newDir();
    const one = open(dir);
    const s = session(one);
    s.create("In the first snapshot");
    one.dataDir!.compact();
    s.create("Only in the journal");
    closeAll(one);
    fs.writeFileSync(join(dir, `${SNAPSHOT_FILE}.tmp`), '{"op":"clear"}\n{"op":"put","db":"DEMO","cust');

    const two = open(dir);
    expect(session(two).names()).toEqual(expect.arrayContaining(["In the first snapshot", "Only in the journal"]));
    expect(fs.existsSync(join(dir, `${SNAPSHOT_FILE}.tmp`))).toBe(false);
    closeAll(two);
  });

  it("gives the same state when a compaction died after its rename, before the journal was emptied", () => {
    const dir = newDir();
    const one = open(dir);
    const s = session(one);
    s.create("Kept");
    const gone = s.create("Deleted later").json<{ CustomerId: string }>().CustomerId;
    call(one, "DELETE", `/v1/api/DEMO/Customer/${gone}`, {
      headers: { authorization: `Bearer ${codeFlowTokens(one).access_token}` },
    });
    call(one, "POST", "/__mock/databases/DEMO/reset", { headers: { "content-type": "application/json" }, body: "{}" });
    s.create("After the reset");
    const journal = fs.readFileSync(join(dir, JOURNAL_FILE));
    const before = session(one).names();
    one.dataDir!.compact();
    closeAll(one);
    // The crash: the new snapshot is in place, the journal still holds what it already contains.
    fs.writeFileSync(join(dir, JOURNAL_FILE), journal);

    const two = open(dir);
    expect(session(two).names()).toEqual(before);
    expect(before).toContain("After the reset");
    expect(before).not.toContain("Kept");
    closeAll(two);
  });
});

describe("a data directory of an earlier version", () => {
  it("folds the old customers.journal.jsonl into the first snapshot and removes it", () => {
    const dir = newDir();
    const customer = { ...BASE, CustomerId: "4242", Name: "From the old journal" };
    fs.writeFileSync(
      join(dir, "customers.journal.jsonl"),
      `${JSON.stringify({ op: "put", db: "DEMO", customer })}\n${JSON.stringify({ op: "delete", db: "DEMO", id: "1001" })}\n`,
    );
    const one = open(dir);
    expect(fs.existsSync(join(dir, "customers.journal.jsonl"))).toBe(false);
    expect(one.ctx.store.get("Customer", "DEMO", "4242")?.Name).toBe("From the old journal");
    closeAll(one);
    const two = open(dir);
    expect(two.ctx.store.get("Customer", "DEMO", "4242")?.Name).toBe("From the old journal");
    expect(two.ctx.store.get("Customer", "DEMO", "1001")).toBeUndefined();
    closeAll(two);
  });
});

describe("a data directory that compacts while writes go on", () => {
  it("keeps every change, the one that made the journal too long included", async () => {
    const dir = newDir();
    const mock = open(dir, { dataDirOptions: { compactAtBytes: 600 } });
    const s = session(mock);
    const names = Array.from({ length: 30 }, (_, i) => `Compacted ${i}`);
    for (const name of names) {
      expect(s.create(name).status).toBe(200);
      // Compaction waits until the request is handled; let it run between requests, as a server does.
      await new Promise((r) => setImmediate(r));
    }
    // Compacted at least once: the snapshot holds customers made in this run.
    expect(fs.readFileSync(join(dir, SNAPSHOT_FILE), "utf8")).toContain('"Name":"Compacted 0"');
    closeAll(mock);
    const again = open(dir);
    expect(session(again).names()).toEqual(expect.arrayContaining(names));
    closeAll(again);
  });
});

describe("a data directory on a full disk", () => {
  it("answers 507, stores and acknowledges nothing, leaves no partial line, and works again once there is space", () => {
    const dir = newDir();
    let full = false;
    // The disk takes half of a write, then reports it full, as write(2) does.
    const ops: WriteOps = {
      writeSync: ((fd: number, buf: Buffer, off: number, len: number, pos: number) =>
        full
          ? len > 1
            ? fs.writeSync(fd, buf, off, Math.floor(len / 2), pos)
            : (() => {
                throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
              })()
          : fs.writeSync(fd, buf, off, len, pos)) as WriteOps["writeSync"],
      fsyncSync: fs.fsyncSync,
    };
    const mock = open(dir, { dataDirOptions: { ops } });
    const s = session(mock);
    expect(s.create("Stored").status).toBe(200);
    const size = fs.statSync(join(dir, JOURNAL_FILE)).size;

    full = true;
    const refused = s.create("Not stored");
    expect(refused.status).toBe(507);
    expect(refused.json<{ Message: string }>().Message).toMatch(/not stored: .*the disk is full/);
    expect(s.names()).not.toContain("Not stored");
    expect(fs.statSync(join(dir, JOURNAL_FILE)).size).toBe(size);
    const login = call(mock, "GET", "/__mock/stats").json<{ accessTokens: number }>();
    expect(() => codeFlowTokens(mock)).toThrow();
    expect(call(mock, "GET", "/__mock/stats").json<{ accessTokens: number }>().accessTokens).toBe(login.accessTokens);

    full = false;
    expect(s.create("Stored after").status).toBe(200);
    closeAll(mock);
    const again = open(dir);
    expect(warningsOf(again)).toEqual([]);
    const names = session(again).names();
    expect(names).toEqual(expect.arrayContaining(["Stored", "Stored after"]));
    expect(names).not.toContain("Not stored");
    closeAll(again);
  });
});

describe("a damaged data directory", () => {
  it.each([
    ["null", "null", /line 2 is not a change: it is null/],
    [
      "a put without its customer",
      '{"op":"put","db":"DEMO"}',
      /line 2 is not a change: a "put" change needs "resource", "db" and "object"/,
    ],
    [
      "a put of a resource the contract does not have",
      '{"op":"put","resource":"Nope","db":"DEMO","object":{}}',
      new RegExp(
        `line 2 is not a change: its resource "Nope" is no editable resource of this contract \\(${EDITABLE.join(", ")}\\): start the mock with the contract that wrote this data directory \\(--contract\\)`,
      ),
    ],
    [
      "counters of a resource the contract does not have (a data directory of another contract)",
      `{"op":"counters","resource":"${ABSENT}","db":"DEMO","nextId":41,"sequences":{}}`,
      new RegExp(`line 2 is not a change: its resource "${ABSENT}" is no editable resource of this contract`),
    ],
    [
      "a delete of a resource the contract does not have",
      `{"op":"delete","resource":"${ABSENT}","db":"DEMO","id":"1"}`,
      new RegExp(`line 2 is not a change: its resource "${ABSENT}" is no editable resource of this contract`),
    ],
    [
      "a customer that breaks the contract",
      '{"op":"put","db":"DEMO","customer":{"CustomerId":"5","Name":42}}',
      /line 2 is not a change: its Customer does not fit the contract: ApplyOrderSurcharge is required/,
    ],
    ["an unknown op", '{"op":"drop"}', /line 2 is not a change: "op" is "drop"/],
    ["text that is not JSON", "{oops", /line 2 is not JSON/],
  ])(
    "stops the start on %s in the middle of the journal, naming the file, the line and the fix",
    (_n, line, message) => {
      const dir = newDir();
      const good = '{"op":"delete","db":"DEMO","id":"1001"}';
      fs.writeFileSync(join(dir, JOURNAL_FILE), `${good}\n${line}\n${good}\n`);
      expect(() => open(dir)).toThrow(DataDirError);
      expect(() => open(dir)).toThrow(message);
      expect(() => open(dir)).toThrow(/journal\.jsonl: line 2 .*Correct or delete that line/);
      // Nothing was cut off or rewritten.
      expect(fs.readFileSync(join(dir, JOURNAL_FILE), "utf8")).toBe(`${good}\n${line}\n${good}\n`);
    },
  );

  it("stops the start on a damaged snapshot and keeps it as it is", () => {
    const dir = newDir();
    const text = '{"op":"clear"}\n{"op":"put","db":"DEMO","customer":null}\n';
    fs.writeFileSync(join(dir, SNAPSHOT_FILE), text);
    expect(() => open(dir)).toThrow(/snapshot\.jsonl: line 2 is not a change.*restore it from a backup/);
    expect(fs.readFileSync(join(dir, SNAPSHOT_FILE), "utf8")).toBe(text);
  });

  it("refuses a journal that is a FIFO at once, rather than waiting for a writer", () => {
    const dir = newDir();
    execFileSync("mkfifo", [join(dir, JOURNAL_FILE)]);
    expect(() => open(dir)).toThrow(new RegExp(`${JOURNAL_FILE} is not a regular file .*move it away`));
  });

  it("refuses a journal of an earlier version that is a FIFO at once, rather than hang holding the lock", () => {
    const dir = newDir();
    execFileSync("mkfifo", [join(dir, "customers.journal.jsonl")]);
    expect(() => open(dir)).toThrow(/customers\.journal\.jsonl is not a regular file .*move it away/);
    // The lock was let go: once the FIFO is moved away, the next start works.
    fs.rmSync(join(dir, "customers.journal.jsonl"));
    closeAll(open(dir));
  });

  it.each([JOURNAL_FILE, SNAPSHOT_FILE])("refuses a %s that is a symbolic link before changing anything", (file) => {
    const dir = newDir();
    const elsewhere = join(newDir(), "someone-elses.txt");
    fs.writeFileSync(elsewhere, "not a journal\n", { mode: 0o644 });
    fs.chmodSync(elsewhere, 0o644);
    fs.symlinkSync(elsewhere, join(dir, file));
    expect(() => open(dir)).toThrow(new RegExp(`${file} is a symbolic link; bawa does not follow it`));
    // Before: the journal's target was made readable by its owner alone, then the start refused.
    expect(fs.statSync(elsewhere).mode & 0o777).toBe(0o644);
    expect(fs.readFileSync(elsewhere, "utf8")).toBe("not a journal\n");
  });

  it("keeps its files readable by their owner alone (they hold live tokens and client secrets)", async () => {
    const dir = newDir();
    const mock = open(dir, { dataDirOptions: { compactAtBytes: 1 } });
    session(mock).create("Private");
    await new Promise((r) => setImmediate(r)); // the compaction runs after the request
    expect(fs.statSync(join(dir, JOURNAL_FILE)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(join(dir, SNAPSHOT_FILE)).mode & 0o777).toBe(0o600);
    closeAll(mock);
  });

  it("reads a journal larger than one read in pieces, line by line", () => {
    const dir = newDir();
    const lines = Array.from(
      { length: 8000 },
      (_, i) =>
        `{"op":"put","db":"BIG","customer":${JSON.stringify({ ...BASE, CustomerId: String(i + 1), Name: `Klant ${i}` })}}`,
    );
    fs.writeFileSync(join(dir, JOURNAL_FILE), `${lines.join("\n")}\n`);
    expect(fs.statSync(join(dir, JOURNAL_FILE)).size).toBeGreaterThan(2 * 1024 * 1024);
    const mock = open(dir);
    expect(mock.ctx.store.list("Customer", "BIG")).toHaveLength(8000);
    closeAll(mock);
  });
});

const BASE = JSON.parse(fs.readFileSync(join(import.meta.dirname, "../../../mock-data/Customer/DEMO.json"), "utf8"))[0];
