// What the README says of the command line and of the code's own figures is
// tested against the code: a new option, switch or rule that the README does
// not know (or a figure typed by hand that went stale) fails here.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_REQUEST_TIMEOUT_SECONDS, VARIABLES } from "../../conformance/lib/config.ts";
import { NO_ANSWER_LIMIT } from "../../conformance/lib/http.ts";
import { requirements } from "../../conformance/lib/requirements.ts";
import { LEARNED_MIN_LENGTH } from "../../conformance/lib/secrets.ts";
import { MAX_CONTRACT_NODES, MAX_ENUM_VALUES, MAX_PATTERN_SIZE, MAX_SCHEMA_PROPERTIES } from "../contract/bounds.ts";
import {
  LOGIN_LOCK_AFTER_PER_BROWSER,
  LOGIN_LOCK_AFTER_PER_USER,
  LOGIN_LOCK_SECONDS,
  LOGIN_SLOW_AFTER_PER_USER,
} from "../mock/core/limits.ts";
import { RULE_NAMES } from "../mock/core/rules.ts";
import { FAULTS, TOLERATED } from "../mock/faults/index.ts";
import { PROJECT_ROOT } from "../paths.ts";
import { ANYWHERE_LENGTH, MARK, MIN_SECRET_LENGTH } from "../rules/redact.ts";
import { KEPT_BYTES, KEPT_ENTRIES, KEPT_ENTRY_BYTES } from "../user-cache.ts";
import { KEPT_YAML_BYTES } from "../yaml-file.ts";
import { commands } from "./bawa.ts";
import { toleranceRuns } from "./faults.ts";

const README = readFileSync(resolve(PROJECT_ROOT, "README.md"), "utf8");
const section = (heading: string) => {
  const start = README.indexOf(`\n${heading}\n`);
  expect(start, `README has a section ${heading}`).toBeGreaterThan(0);
  const next = README.slice(start + heading.length + 2).search(/\n#{2,3} /);
  return README.slice(start, next < 0 ? undefined : start + heading.length + 2 + next);
};

const COMMANDS = await commands();

describe("the README and the commands' --help", () => {
  it("every option of every command is in that command's --help", () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      for (const option of Object.keys(command.options)) {
        expect(command.usage, `bawa ${name} --help names --${option}`).toContain(`--${option}`);
      }
    }
  });

  it("the mock's configuration table lists exactly the options of bawa mock", () => {
    const rows = [...section("### Configuration").matchAll(/^\| `--([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(Object.keys(COMMANDS.mock!.options).sort());
  });

  it("every CONFORMANCE_ variable the README names is a setting --help lists", () => {
    const listed = new Set(VARIABLES.map(([n]) => n));
    const named = [...new Set([...README.matchAll(/\bCONFORMANCE_[A-Z_]+[A-Z]\b/g)].map((m) => m[0]))];
    // Two are prefixes of a family of settings the README writes with a trailing underscore.
    const unknown = named.filter((n) => !listed.has(n) && ![...listed].some((l) => l.startsWith(`${n}_`)));
    expect(unknown).toEqual([]);
  });
});

describe("the README's figures are the code's", () => {
  it("the fault score names every switch", () => {
    expect(README).toContain(`**Score: ${FAULTS.length} of ${FAULTS.length} faults caught (100 %)**`);
  });

  it("the number of rules", () => {
    expect(README).toContain(`lists all ${RULE_NAMES.length} with their defaults`);
  });

  it("the runs of the tolerated behaviours", () => {
    const words = [
      "zero",
      "one",
      "two",
      "three",
      "four",
      "five",
      "six",
      "seven",
      "eight",
      "nine",
      "ten",
      "eleven",
      "twelve",
    ];
    expect(README).toContain(
      `(${words[toleranceRuns(TOLERATED).length]} runs for ${words[TOLERATED.length]} behaviours)`,
    );
  });

  it("the requirements Prism is expected to fail", () => {
    const profile = parse(readFileSync(resolve(PROJECT_ROOT, "conformance/profiles/prism.yaml"), "utf8")) as {
      expectedFailures: Record<string, string>;
    };
    expect(README).toContain(`The profile lists ${Object.keys(profile.expectedFailures).length} requirements`);
    for (const id of Object.keys(profile.expectedFailures)) expect(requirements().has(id), id).toBe(true);
  });

  it("the suite's bounds and what it redacts", () => {
    const flat = README.replace(/\s+/g, " ");
    expect(flat).toContain(
      `| \`CONFORMANCE_REQUEST_TIMEOUT\` | seconds one request (or a page of the screens) may take, its answer read whole, before its check fails (default ${DEFAULT_REQUEST_TIMEOUT_SECONDS}) |`,
    );
    expect(flat).toContain(
      `| \`CONFORMANCE_MAX_ANSWER_BYTES\` | the largest answer the suite reads (default ${DEFAULT_MAX_ANSWER_BYTES}, ${DEFAULT_MAX_ANSWER_BYTES / 2 ** 20} MiB)`,
    );
    expect(NO_ANSWER_LIMIT).toBe(3);
    expect(flat).toContain("When three requests in a row get no answer");
    expect(flat).toContain(`stands as **\`${MARK}\`**`);
    expect(flat).toContain(
      `a value of fewer than ${ANYWHERE_LENGTH} characters where no letter, digit, \`-\` or \`_\` touches it`,
    );
    expect(flat).toContain(
      `one of fewer than ${MIN_SECRET_LENGTH} characters, or a learned one of fewer than ${LEARNED_MIN_LENGTH}, only in a field of a secret kind`,
    );
  });

  it("the limits of a contract, and of wrong passwords", () => {
    const n = (v: number) => v.toLocaleString("en");
    expect(README).toContain(
      `at most ${n(MAX_CONTRACT_NODES)} nodes, ${n(MAX_SCHEMA_PROPERTIES)} properties per\nschema and ${n(MAX_ENUM_VALUES)} values per enum`,
    );
    expect(README).toContain(`at most ${MAX_PATTERN_SIZE} instructions`);
    expect(README).toContain(`from the ${LOGIN_SLOW_AFTER_PER_USER + 1}th in a row each answer comes 1 s\nlate`);
    expect(README).toContain(`the ${LOGIN_LOCK_AFTER_PER_USER}th locks the user name for ${LOGIN_LOCK_SECONDS} s`);
    expect(LOGIN_LOCK_AFTER_PER_BROWSER).toBe(30);
    expect(README).toContain("Thirty wrong passwords\nin quick succession");
  });

  it("what the user's cache folder keeps", () => {
    const flat = README.replace(/\s+/g, " ");
    const mib = (bytes: number) => bytes / 1024 / 1024;
    expect(flat).toContain(
      `it keeps the ${KEPT_ENTRIES} most recently used entries and ${mib(KEPT_BYTES)} MiB, none over ${mib(KEPT_ENTRY_BYTES)} MiB`,
    );
    expect(flat).toContain(`a YAML text of ${KEPT_YAML_BYTES / 1024} KB or more`);
  });
});
