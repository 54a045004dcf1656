// The command line: `bawa <command> [options]`. Exit codes: 0 success,
// 1 the job failed, 2 the command line was wrong.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { mockCommand } from "./mock.ts";
import { prismCommand } from "./prism.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  run(values: Record<string, string | boolean | undefined>): Promise<number | void>;
}

const COMMANDS: Record<string, Command> = {
  mock: mockCommand,
  prism: prismCommand,
};

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(14)} ${c.summary}`);
  return `usage: bawa <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nbawa <command> --help shows a command's options.`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(help());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`bawa: unknown command ${JSON.stringify(name)}\n\n${help()}`);
    return 2;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: rest, options: { ...command.options, help: { type: "boolean", short: "h" } }, strict: true }).values;
  } catch (err) {
    console.error(`bawa ${name}: ${(err as Error).message}\n\n${command.usage}`);
    return 2;
  }
  if (values.help) {
    console.log(command.usage);
    return 0;
  }
  try {
    return (await command.run(values)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`bawa ${name}: ${err.message}\n\n${command.usage}`);
      return 2;
    }
    console.error(`bawa ${name}: ${(err as Error).message}`);
    return 1;
  }
}

/** An option's value: the flag, else the environment variable, else the default. */
export function setting(values: Record<string, unknown>, flag: string, env: string, fallback: string): string {
  const v = values[flag];
  return typeof v === "string" ? v : (process.env[env] ?? fallback);
}

export function portSetting(values: Record<string, unknown>, flag: string, env: string, fallback: number): number {
  const raw = setting(values, flag, env, String(fallback));
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--${flag} (${env}) must be a port number 0-65535, not ${JSON.stringify(raw)}`);
  return port;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replaceAll("\\", "/").split("/").pop()!)) {
  process.exitCode = await main(process.argv.slice(2));
}
