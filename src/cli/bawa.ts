// The command line: `bawa <command> [options]`. Exit codes: 0 success,
// 1 the job failed, 2 the command line was wrong.
import { parseArgs } from "node:util";
import { type Command, UsageError } from "./options.ts";

const ensureBrowserCommand: Command = {
  summary: "find the Chromium the suite's screen checks drive, or install one",
  usage: `usage: bawa ensure-browser

Finds a Chromium (BAWA_CHROMIUM, Debian's chromium-headless-shell or chromium,
Playwright's own download) and says which. When there is none: as root with
apt-get, installs Debian's chromium-headless-shell; otherwise runs Playwright's
browser download. Exit 1 with the reason when no browser can be had.`,
  options: {},
  run: async () => (await import("../../scripts/ensure-browser.mjs")).ensureBrowser(),
};

/**
 * Each command's module, imported when that command runs: `bawa mock` starts without loading
 * the suite's, the proxy's or Prism's code (20-40 ms of every start).
 */
const LOADERS: Record<string, () => Promise<Command>> = {
  conformance: async () => (await import("./conformance.ts")).conformanceCommand,
  mock: async () => (await import("./mock.ts")).mockCommand,
  prism: async () => (await import("./prism.ts")).prismCommand,
  proxy: async () => (await import("./proxy.ts")).proxyCommand,
  faults: async () => (await import("./faults.ts")).faultsCommand,
  activate: async () => (await import("./operator.ts")).activateCommand,
  "refresh-token": async () => (await import("./operator.ts")).refreshTokenCommand,
  "ensure-browser": async () => ensureBrowserCommand,
};

/** Every command by name (for the overview and the tests; it loads them all). */
export async function commands(): Promise<Record<string, Command>> {
  const out: Record<string, Command> = {};
  for (const [name, load] of Object.entries(LOADERS)) out[name] = await load();
  return out;
}

/** bawa's version, from its package.json. */
async function version(): Promise<string> {
  const { readFileSync } = await import("node:fs");
  const { resolve } = await import("node:path");
  const { PROJECT_ROOT } = await import("../paths.ts");
  return (JSON.parse(readFileSync(resolve(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;
}

async function help(): Promise<string> {
  const lines = Object.entries(await commands()).map(([name, c]) => `  ${name.padEnd(14)} ${c.summary}`);
  return `usage: bawa <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nbawa <command> --help shows a command's options; bawa --version its version.`;
}

/**
 * `--name value` as `--name=value` where the value begins with one dash: parseArgs refuses such a
 * value as ambiguous, yet tokens, secrets and passwords are base64url or free text, and one in 64
 * refresh tokens begins with "-" (a user pasting one got "takes no value"). A value that begins
 * with two dashes stays an error: it is far more often a mistyped option (`--refresh-token --gerp
 * X` would otherwise take "--gerp" as the token) than a token, and the message says to write
 * `--name=--...`. `-h` stays help; nothing after `--` (Playwright's arguments) is touched.
 */
export function joinDashValues(args: readonly string[], options: Command["options"]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return [...out, ...args.slice(i)];
    const next = args[i + 1];
    const takesValue = arg.startsWith("--") && options[arg.slice(2)]?.type === "string";
    if (takesValue && next?.startsWith("-") && !next.startsWith("--") && next !== "-h") {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * What is wrong with a command line, in bawa's words: node's parseArgs explains a stray option as a
 * positional argument to quote, which is not what someone who mistyped a flag needs to read.
 */
function usageProblem(err: NodeJS.ErrnoException, command: Command): string {
  const option = /option '(-{1,2}[^' ]*)/i.exec(err.message)?.[1];
  const known = Object.keys(command.options).map((o) => `--${o}`);
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) {
    const near = known.find((k) => k.replace(/-/g, "") === option.replace(/-/g, ""));
    return `unknown option ${option}${near ? `; did you mean ${near}?` : ""}`;
  }
  if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const arg = /argument '([^']*)'/.exec(err.message)?.[1];
    return `this command takes no argument${arg ? ` (got ${JSON.stringify(arg)})` : ""}; options begin with --`;
  }
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option) {
    if (/argument missing/.test(err.message)) return `${option} needs a value`;
    // "argument is ambiguous": what follows begins with "--" (or is -h); see joinDashValues.
    if (/ambiguous/.test(err.message))
      return `${option} needs a value (one that begins with -- is given as ${option}=--...)`;
    return `${option} takes no value`;
  }
  return err.message;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v" || name === "version") {
    console.log(`bawa ${await version()}`);
    return 0;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    console.log(await help());
    return 0;
  }
  // No command is a usage error (exit 2), so a script that lost its argument does not pass.
  if (!name) {
    console.error(`bawa: which command?\n\n${await help()}`);
    return 2;
  }
  // An own property only: "constructor" or "__proto__" is no command.
  const load = Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
  if (!load) {
    console.error(`bawa: unknown command ${JSON.stringify(name)}\n\n${await help()}`);
    return 2;
  }
  const command = await load();
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: joinDashValues(rest, command.options),
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: command.positionals ?? false,
    }));
  } catch (err) {
    console.error(`bawa ${name}: ${usageProblem(err as NodeJS.ErrnoException, command)}\n\n${command.usage}`);
    return 2;
  }
  if (values.help) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(values, positionals);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(
        `bawa ${name}: ${err.message}\n${err.showUsage ? `\n${command.usage}` : `(bawa ${name} --help lists every option and setting)`}`,
      );
      return 2;
    }
    console.error(`bawa ${name}: ${(err as Error).message}`);
    return 1;
  }
}
