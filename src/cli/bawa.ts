// The command line: `bawa <command> [options]`. Exit codes: 0 success,
// 1 the job failed, 2 the command line was wrong.
import { parseArgs } from "node:util";
import { ensureBrowser } from "../../scripts/ensure-browser.mjs";
import { conformanceCommand } from "./conformance.ts";
import { faultsCommand } from "./faults.ts";
import { mockCommand } from "./mock.ts";
import { activateCommand, refreshTokenCommand } from "./operator.ts";
import { type Command, UsageError } from "./options.ts";
import { prismCommand } from "./prism.ts";
import { proxyCommand } from "./proxy.ts";

const ensureBrowserCommand: Command = {
  summary: "find the Chromium the suite's screen checks drive, or install one",
  usage: `usage: bawa ensure-browser

Finds a Chromium (BAWA_CHROMIUM, Debian's chromium-headless-shell or chromium,
Playwright's own download) and says which. When there is none: as root with
apt-get, installs Debian's chromium-headless-shell; otherwise runs Playwright's
browser download. Exit 1 with the reason when no browser can be had.`,
  options: {},
  run: async () => ensureBrowser(),
};

export const COMMANDS: Record<string, Command> = {
  conformance: conformanceCommand,
  mock: mockCommand,
  prism: prismCommand,
  proxy: proxyCommand,
  faults: faultsCommand,
  activate: activateCommand,
  "refresh-token": refreshTokenCommand,
  "ensure-browser": ensureBrowserCommand,
};

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(14)} ${c.summary}`);
  return `usage: bawa <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nbawa <command> --help shows a command's options.`;
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
    return /argument missing/.test(err.message) ? `${option} needs a value` : `${option} takes no value`;
  }
  return err.message;
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
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
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
      console.error(`bawa ${name}: ${err.message}\n\n${command.usage}`);
      return 2;
    }
    console.error(`bawa ${name}: ${(err as Error).message}`);
    return 1;
  }
}
