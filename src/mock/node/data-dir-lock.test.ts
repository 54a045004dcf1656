// A data directory belongs to one process, and what it holds is checked at
// start like the live input it came from: two mocks on one directory lost
// acknowledged writes once, an empty snapshot loaded half the state without a
// word, a stored redirect URI broke every request with an Origin.
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../paths.ts";
import { buildMock } from "../index.ts";
import { call, control } from "../testing.ts";
import { backgroundTokens } from "./client.ts";
import { DataDirError, JOURNAL_FILE, LOCK_FILE, SNAPSHOT_FILE, sentenceOf } from "./data-dir.ts";

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const newDir = () => {
  const d = fs.mkdtempSync(join(tmpdir(), "bawa-datadir-lock-"));
  dirs.push(d);
  return d;
};

/** Starts `bawa mock` and waits for it to listen or to exit; what it said either way. */
function start(dir: string): Promise<{ child: ChildProcess; url?: string; code?: number; out: string }> {
  const child = spawn(
    process.execPath,
    [resolve(PROJECT_ROOT, "bin/bawa.js"), "mock", "--port", "0", "--quiet", "--data-dir", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  return new Promise((done) => {
    let out = "";
    const read = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) done({ child, url: m[1]!, out });
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => done({ child, code: code ?? 1, out }));
  });
}

const create = async (url: string, access: string, Name: string) => {
  const res = await fetch(`${url}/v1/api/DEMO/Customer`, {
    method: "POST",
    headers: { authorization: `Bearer ${access}`, "content-type": "application/json" },
    body: JSON.stringify({ Name }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { CustomerId: string }).CustomerId;
};

describe("a data directory belongs to one process", () => {
  it("refuses a second mock, naming the directory and the process holding it; the first's writes survive a crash and a restart", async () => {
    const dir = newDir();
    const first = await start(dir);
    expect(first.url, first.out).toBeDefined();
    const { access } = await backgroundTokens(first.url!);
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i++) acknowledged.push(await create(first.url!, access, `Eerste ${i}`));

    const second = await start(dir);
    expect(second.code, second.out).toBe(1);
    expect(second.out).toContain(`the data directory ${dir} is in use by another mock: process ${first.child.pid}`);
    expect(second.out).toContain("give this one another --data-dir");

    // The first goes on, acknowledges more, then dies without giving the directory up.
    for (let i = 20; i < 40; i++) acknowledged.push(await create(first.url!, access, `Eerste ${i}`));
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));
    expect(fs.existsSync(join(dir, LOCK_FILE)), "the dead process's lock is still there").toBe(true);

    // The next start takes the stale lock over and has every acknowledged write.
    const third = await start(dir);
    expect(third.url, third.out).toBeDefined();
    expect(third.out).toMatch(/took over the lock of process \d+ \(started [^)]+\), which is gone/);
    const t = await backgroundTokens(third.url!);
    const list = (await (
      await fetch(`${third.url}/v1/api/DEMO/CustomerInfoList`, { headers: { authorization: `Bearer ${t.access}` } })
    ).json()) as Array<{ CustomerId: string }>;
    const ids = new Set(list.map((c) => c.CustomerId));
    expect(
      acknowledged.filter((id) => !ids.has(id)),
      "acknowledged and lost",
    ).toEqual([]);
    third.child.kill("SIGTERM");
    await new Promise((r) => third.child.once("exit", r));
    expect(fs.existsSync(join(dir, LOCK_FILE)), "a mock that stops gives the directory up").toBe(false);
  }, 60_000);

  it("lets exactly one of four mocks started at once take over a lock whose mock was killed", async () => {
    const dir = newDir();
    const killed = await start(dir);
    expect(killed.url, killed.out).toBeDefined();
    killed.child.kill("SIGKILL");
    await new Promise((r) => killed.child.once("exit", r));
    const starts = await Promise.all(Array.from({ length: 4 }, () => start(dir)));
    const listening = starts.filter((s) => s.url);
    expect(listening.map((s) => s.out)).toHaveLength(1);
    const winner = listening[0]!.child.pid;
    for (const s of starts.filter((x) => !x.url)) {
      expect(s.code, s.out).toBe(1);
      expect(s.out).toContain(`is in use by another mock: process ${winner}, started `);
    }
  }, 60_000);

  it("a mock of this process on the same directory is refused too, and a start that fails leaves no lock", () => {
    const dir = newDir();
    const one = buildMock({ dataDir: dir });
    expect(() => buildMock({ dataDir: dir })).toThrow(new RegExp(`is in use by another mock: process ${process.pid}`));
    one.dataDir!.close();
    fs.writeFileSync(join(dir, JOURNAL_FILE), "{oops\n");
    expect(() => buildMock({ dataDir: dir })).toThrow(DataDirError);
    expect(fs.existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});

describe("what a data directory holds is checked like live input", () => {
  it("a journal line with a redirect URI the portal would refuse stops the start, naming file and line", () => {
    const dir = newDir();
    const app = {
      clientId: "app-x",
      clientSecret: "s3cr3t",
      name: "X",
      redirectUri: "http://exa mple/cb",
      status: "Actief",
    };
    fs.writeFileSync(join(dir, JOURNAL_FILE), `{"op":"clear"}\n${JSON.stringify({ op: "app", app })}\n`);
    expect(() => buildMock({ dataDir: dir })).toThrow(
      /journal\.jsonl: line 2 is not a change: its application's redirectUri .*Correct or delete that line/,
    );
  });

  it("an empty snapshot is an error, not a partial load", () => {
    const dir = newDir();
    fs.writeFileSync(join(dir, SNAPSHOT_FILE), "");
    expect(() => buildMock({ dataDir: dir })).toThrow(/snapshot\.jsonl: line 1 is missing: the snapshot is empty/);
  });

  it("a snapshot cut at a line boundary is an error; one of an earlier version without an end line is read", () => {
    const dir = newDir();
    const mock = buildMock({ dataDir: dir });
    for (let i = 0; i < 5; i++) {
      expect(control(mock, "/__mock/databases/DEMO/reset", "{}").status).toBe(200);
    }
    mock.dataDir!.compact();
    mock.dataDir!.close();
    const lines = fs.readFileSync(join(dir, SNAPSHOT_FILE), "utf8").trimEnd().split("\n");
    expect(JSON.parse(lines[0]!)).toEqual({ op: "clear", form: 2 });
    expect(JSON.parse(lines.at(-1)!)).toEqual({ op: "end", lines: lines.length - 1 });
    // Cut after a whole line, as a copy that stopped early would leave it.
    fs.writeFileSync(join(dir, SNAPSHOT_FILE), `${lines.slice(0, 4).join("\n")}\n`);
    expect(() => buildMock({ dataDir: dir })).toThrow(
      /the snapshot ends without its end line after 4 lines, so it was cut short/,
    );
    // An earlier version's snapshot: no form, no end line.
    fs.writeFileSync(join(dir, SNAPSHOT_FILE), `{"op":"clear"}\n${lines.slice(1, -1).join("\n")}\n`);
    const warnings: string[] = [];
    const earlier = buildMock({ dataDir: dir, dataDirOptions: { warn: (m) => warnings.push(m) } });
    expect(warnings.join("\n")).toMatch(/has no end line \(written by an earlier version\); read as it is/);
    expect(call(earlier, "GET", "/__mock/stats").json().objects).toBeGreaterThan(0);
    earlier.dataDir!.close();
  });

  it("a directory that can not be written is said in a sentence, not an errno", () => {
    const dir = newDir();
    const file = join(dir, "a-file");
    fs.writeFileSync(file, "");
    expect(() => buildMock({ dataDir: join(file, "data") })).toThrow(
      /can not be the data directory: a part of the path is a file, not a directory \(ENOTDIR\)\. Give --data-dir a directory this mock may write/,
    );
    // Node.js 20's recursive mkdir spun forever here; a level at a time, /proc refuses at once.
    expect(() => buildMock({ dataDir: "/proc/bawa-nowhere/data" })).toThrow(
      /^\/proc\/bawa-nowhere\/data can not be the data directory: .*\((ENOENT|EACCES|EPERM|EROFS)\)/,
    );
    // Missing levels are made, as `mkdir -p` makes them.
    const deep = join(dir, "a", "b", "c");
    buildMock({ dataDir: deep }).dataDir!.close();
    expect(fs.statSync(deep).isDirectory()).toBe(true);
    const readOnly = Object.assign(new Error("EROFS: read-only file system, open 'x'"), { code: "EROFS" });
    expect(sentenceOf(readOnly, "the journal can not be opened")).toBe(
      "the journal can not be opened: it is on a read-only file system (EROFS). Give --data-dir a directory this mock may write, or leave it out to keep the state in memory.",
    );
  });
});
