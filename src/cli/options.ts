// What every command shares: the Command shape, usage errors, settings from flags or environment.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { CONTRACT_PATH, type CompiledContract, compileContract } from "../contract/index.ts";

export class UsageError extends Error {
  override name = "UsageError";
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

/** Compiles the contract of --contract; a document bawa can not read is the job's failure, said plainly. */
export function contractOf(values: Record<string, unknown>, options: { eager?: boolean } = {}): CompiledContract {
  const path = contractPath(values);
  try {
    return compileContract(path, options);
  } catch (err) {
    throw new Error(`the contract ${path} can not be used: ${(err as Error).message}`);
  }
}
