// What a run knows to be secret: the settings of that kind, and every token,
// code and cookie the target hands out, learned as the run goes (where the
// suite reads token answers, redirects and cookies). The workers write what
// they learn to a file of the run's own folder (BAWA_CONFORMANCE_RUN_DIR:
// outside the reports, readable by the run's user alone, deleted at the end),
// so the runner's reporters and the command line can take it out of what they
// write and print (decision 0023).
import { appendFileSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redactor } from "../../src/rules/redact.ts";

/** The run's private folder: learned secrets, a target that stopped answering, a run cut short. */
export const RUN_DIR_VARIABLE = "BAWA_CONFORMANCE_RUN_DIR";
const LEARNED_FILE = "learned-secrets";
/** The file of the run's folder that names the signal that cut the run short (bawa conformance writes it). */
export const CUT_FILE = "cut";

/** The settings (without the CONFORMANCE_ prefix) whose values are secret. */
export const SECRET_SETTINGS = [
  "CLIENT_SECRET",
  "SECOND_CLIENT_SECRET",
  "PASSWORD",
  "REFRESH_TOKEN",
  "CONTROL_TOKEN",
] as const;

/** Learned values shorter than this are not taken: a placeholder ("broken", "x") is no issued secret. */
export const LEARNED_MIN_LENGTH = 8;

/** The values of the secret settings among `settings` (keys with or without the CONFORMANCE_ prefix). */
export function settingSecrets(settings: Readonly<Record<string, string | undefined>>): string[] {
  return SECRET_SETTINGS.flatMap((k) => [settings[k], settings[`CONFORMANCE_${k}`]]).filter(
    (v): v is string => typeof v === "string" && v !== "",
  );
}

/**
 * The run's folder, made (mode 0700, in the system's temporary folder) when the environment names
 * none, and then removed when this process exits: the runner that made it is the last to use it
 * (its reporters read it after the workers are gone). A folder the environment names is its
 * maker's to remove (`bawa conformance` removes its own).
 */
export function ensureRunDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[RUN_DIR_VARIABLE];
  if (given) return given;
  const made = mkdtempSync(join(tmpdir(), "bawa-conformance-run-"));
  env[RUN_DIR_VARIABLE] = made;
  process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  return made;
}

/** Where a refresh reads into: one for the process (a new 64 KiB buffer per refresh cost more than the open it saved). */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * The secrets of a run as the runner and the command line see them: the settings given, and
 * what the workers learned, read again from the run's folder on each refresh().
 */
export class RunSecrets {
  readonly redactor = new Redactor();
  readonly #dir: string | undefined;
  /**
   * The learned file, open for the process's life (the OS closes it): every text the runner
   * reports is redacted, thousands in a run, and each looked for new lines. Opening, sizing and
   * closing the file each time cost three system calls; a read from where the last one ended
   * costs one, and finds nothing when nothing was learned.
   */
  #fd: number | undefined;
  #offset = 0;
  #pending = "";

  constructor(dir: string | undefined = process.env[RUN_DIR_VARIABLE]) {
    this.#dir = dir || undefined;
  }

  addSettings(settings: Readonly<Record<string, string | undefined>>): void {
    for (const v of settingSecrets(settings)) this.redactor.add(v);
  }

  /** Takes up what the workers learned since the last call. */
  refresh(): void {
    if (!this.#dir) return;
    if (this.#fd === undefined) {
      const file = join(this.#dir, LEARNED_FILE);
      // None learned yet: no file (existsSync does not throw, as a failed open would).
      if (!existsSync(file)) return;
      try {
        this.#fd = openSync(file, "r");
      } catch {
        // Gone since (the run's folder is removed as the run ends): nothing more to learn.
        return;
      }
    }
    for (;;) {
      const n = readSync(this.#fd, READ_BUFFER, 0, READ_BUFFER.length, this.#offset);
      if (n === 0) break;
      this.#offset += n;
      // A line a worker is still writing waits for its end; a character split between reads too.
      const text = this.#pending + READ_BUFFER.toString("latin1", 0, n);
      const whole = text.lastIndexOf("\n") + 1;
      this.#pending = text.slice(whole);
      for (const line of Buffer.from(text.slice(0, whole), "latin1").toString("utf8").split("\n")) {
        if (line) this.redactor.add(JSON.parse(line) as string, LEARNED_MIN_LENGTH);
      }
    }
  }

  redact(text: string): string {
    this.refresh();
    return this.redactor.redact(text);
  }
}

// ── in a worker: what the checks learn ──

const known = new Redactor();

/** Text for a message or a report, every secret this worker knows and every secret field replaced. */
export const redact = (text: string): string => known.redact(text);

/** The secret settings of a target this worker checks. */
export function knowSettings(settings: Readonly<Record<string, string | undefined>>): void {
  for (const v of settingSecrets(settings)) known.add(v);
}

/** A value the target issued or the suite sent as a secret; kept for this worker and the run. */
export function learn(value: unknown): void {
  if (typeof value !== "string" || !known.add(value, LEARNED_MIN_LENGTH)) return;
  const dir = process.env[RUN_DIR_VARIABLE];
  if (dir) appendFileSync(join(dir, LEARNED_FILE), `${JSON.stringify(value)}\n`, { mode: 0o600 });
}

const TOKEN_FIELDS = ["access_token", "refresh_token", "id_token", "code"] as const;

/** The codes and tokens of an address's query and fragment. */
export function learnFromUrl(url: URL | string | undefined): void {
  if (!url) return;
  let u: URL;
  try {
    u = new URL(String(url));
  } catch {
    return;
  }
  const fragment = new URLSearchParams(u.hash.slice(1));
  for (const f of TOKEN_FIELDS) {
    learn(u.searchParams.get(f));
    learn(fragment.get(f));
  }
}

/** The cookies of Set-Cookie values (one per line, as the suite's replies keep them). */
export function learnFromSetCookie(header: string | undefined): void {
  for (const line of (header ?? "").split("\n")) learn(/^[^=;]*=([^;]*)/.exec(line.trim())?.[1]?.trim());
}

/** Tokens of a token answer (JSON or a form), cookies, and the codes of a redirect's Location. */
export function learnFromAnswer(answer: { headers: Record<string, string>; text: string }): void {
  learnFromSetCookie(answer.headers["set-cookie"]);
  learnFromUrl(answer.headers.location);
  if (!/access_token|refresh_token|id_token/.test(answer.text)) return;
  let fields: Record<string, unknown> = {};
  try {
    const json: unknown = JSON.parse(answer.text);
    if (typeof json === "object" && json !== null) fields = json as Record<string, unknown>;
  } catch {
    fields = Object.fromEntries(new URLSearchParams(answer.text.trim()));
  }
  for (const f of TOKEN_FIELDS) learn(fields[f]);
}

/** What a request carries that is secret: credentials in its form and its Authorization header. */
export function learnFromRequest(headers: Record<string, string>, form: Record<string, string | undefined> = {}): void {
  for (const k of ["client_secret", "refresh_token", "code", "password"]) learn(form[k]);
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === "authorization") learnCredentials(value);
    else if (lower === "cookie") for (const pair of value.split(";")) learn(pair.split("=").slice(1).join("="));
    else if (lower === "x-bawa-control-token") learn(value);
  }
}

function learnCredentials(value: string): void {
  const [scheme, credentials] = value.trim().split(/\s+/, 2);
  if (!credentials) return;
  learn(credentials);
  if (scheme?.toLowerCase() === "basic") {
    const decoded = Buffer.from(credentials, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon >= 0) learn(formDecoded(decoded.slice(colon + 1)));
  }
}

/** A form-urlencoded value decoded (RFC 6749 2.3.1's Basic credentials), or as it is when it is not one. */
function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return value;
  }
}
