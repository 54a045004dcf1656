// What every command shares: the Command shape, usage errors, settings from flags or environment.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { CompiledContract } from "../contract/index.ts";
import { CONTRACT_PATH } from "../paths.ts";

export class UsageError extends Error {
  override name = "UsageError";
  /**
   * Whether the command's usage follows the message: yes for a wrong command line, no for a
   * setting that is missing or wrong (the usage of `bawa conformance` is 80 lines, and the
   * message already names what to set).
   */
  readonly showUsage: boolean;

  constructor(message: string, options: { usage?: boolean } = {}) {
    super(message);
    this.showUsage = options.usage ?? true;
  }
}

export interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Whether the command takes arguments besides options. */
  positionals?: boolean;
  run(values: Record<string, string | boolean | undefined>, positionals?: string[]): Promise<number>;
}

/** An option's value: the flag, else the environment variable, else the default. */
export function setting(values: Record<string, unknown>, flag: string, env: string, fallback: string): string {
  const v = values[flag];
  return typeof v === "string" ? v : (process.env[env] ?? fallback);
}

export function portSetting(values: Record<string, unknown>, flag: string, env: string, fallback: number): number {
  const raw = setting(values, flag, env, String(fallback));
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--${flag} (${env}) must be a port number 0-65535, not ${JSON.stringify(raw)}`);
  return port;
}

/** API versions from --versions or BAWA_VERSIONS: digits, with or without a leading v. */
export function versionsSetting(values: Record<string, unknown>): string[] {
  const versions = setting(values, "versions", "BAWA_VERSIONS", "1")
    .split(",")
    .map((v) => v.trim().replace(/^[vV]/, ""));
  if (versions.some((v) => !/^\d+$/.test(v)))
    throw new UsageError("--versions must be digits separated by commas, like 1,18,221");
  return versions;
}

/** The options every serving command has. */
export const SERVER_OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  versions: { type: "string" },
  seed: { type: "string" },
  contract: { type: "string" },
} as const;

/** The contract's file: --contract, else BAWA_CONTRACT, else the project's openapi/openapi.yaml. */
export function contractPath(values: Record<string, unknown>, env = "BAWA_CONTRACT"): string {
  const given = setting(values, "contract", env, "");
  if (given === "") return CONTRACT_PATH;
  const path = resolve(given);
  if (!existsSync(path)) throw new UsageError(`--contract (${env}): there is no file ${path}`);
  return path;
}

/**
 * Compiles the contract of --contract. A document bawa can not use is the command line's to change
 * (exit 2): the message names the node (`#/components/schemas/A: ...`). Ajv, YAML and the XML
 * parser load here, not with the command line: its usage and a run against a target need none.
 */
export async function contractOf(
  values: Record<string, unknown>,
  options: { eager?: boolean } = {},
): Promise<CompiledContract> {
  const path = contractPath(values);
  const { compileContract } = await import("../contract/index.ts");
  try {
    return compileContract(path, options);
  } catch (err) {
    throw unusableContract(path, err);
  }
}

/** Why the contract at `path` can not be used, as a usage error (exit 2). */
export const unusableContract = (path: string, err: unknown): UsageError =>
  new UsageError(`the contract ${path} can not be used: ${(err as Error).message}`);

/** The options of a server with its own pages and control calls: bawa mock, bawa proxy. */
export const CONTROL_OPTIONS = {
  "allowed-hosts": { type: "string" },
  "control-token": { type: "string" },
  "cors-origins": { type: "string" },
} as const;

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Who may reach a server's own pages and control calls: `--control-token` (made up when the
 * server listens off loopback, so a stray request can not switch a shared server), more Host
 * names (`--allowed-hosts`) and the origins a page may call from (`--cors-origins`).
 */
export function controlSettings(
  values: Record<string, unknown>,
  host: string,
): { controlToken: string; allowedHosts: string[]; corsOrigins: "registered" | "*" | string[] } {
  const given = setting(values, "control-token", "BAWA_CONTROL_TOKEN", "");
  if (given && !/^[A-Za-z0-9._~-]{16,}$/.test(given)) {
    throw new UsageError("--control-token (BAWA_CONTROL_TOKEN) must be at least 16 of A-Z a-z 0-9 . _ ~ -");
  }
  return {
    controlToken: given || (LOOPBACK.test(host) ? "" : randomBytes(24).toString("base64url")),
    allowedHosts: setting(values, "allowed-hosts", "BAWA_ALLOWED_HOSTS", "")
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean),
    corsOrigins: corsSetting(setting(values, "cors-origins", "BAWA_CORS_ORIGINS", "")),
  };
}

/** Why a server could not listen, with the option that changes it. */
export function listenError(err: unknown, host: string, port: number): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e.code === "EADDRINUSE")
    return new Error(`port ${port} on ${host} is in use; pick another with --port or BAWA_PORT`);
  if (e.code === "EADDRNOTAVAIL")
    return new Error(`cannot listen on ${host}: no such local address (--host, BAWA_HOST)`);
  if (e.code === "ENOTFOUND" || e.code === "EAI_AGAIN")
    return new Error(`cannot listen on ${host}: no address or host name that resolves (--host, BAWA_HOST)`);
  return err;
}

/** `--cors-origins`: empty for the active applications' redirect URI origins, `*`, or a list of origins. */
function corsSetting(value: string): "registered" | "*" | string[] {
  if (value === "") return "registered";
  if (value === "*") return "*";
  return value.split(",").map((o) => {
    let url: URL;
    try {
      url = new URL(o.trim());
    } catch {
      throw new UsageError(`--cors-origins: ${o.trim()} is not an origin such as http://localhost:5173`);
    }
    if (url.origin === "null" || url.href !== `${url.origin}/`) {
      throw new UsageError(`--cors-origins: ${o.trim()} is not an origin (scheme, host and port, nothing more)`);
    }
    return url.origin;
  });
}
