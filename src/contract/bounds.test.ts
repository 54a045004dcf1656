// What a contract may say (A-LIMITS, decision 0021): each limit refused when
// the contract is read, naming the node; patterns run in linear time and mean
// what ECMAScript says; `$ref` loops named with their path.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { PROJECT_ROOT } from "../paths.ts";
import {
  ContractError,
  checkContract,
  MAX_CONTRACT_BYTES,
  MAX_CONTRACT_DEPTH,
  MAX_CONTRACT_NODES,
  MAX_ENUM_VALUES,
  MAX_PATTERN_SIZE,
  MAX_SCHEMA_PROPERTIES,
} from "./bounds.ts";
import { type JsonSchema, loadContract, type OpenApiDocument, SchemaSet } from "./contract.ts";
import { backtrackingSteps, linearPattern, NATIVE_STEPS, re2Pattern, termsAtLeast } from "./patterns.ts";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "bawa-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The project's contract with its schemas edited. */
function contractWith(
  edit: (schemas: Record<string, JsonSchema & { properties?: Record<string, JsonSchema> }>) => void,
) {
  const doc = structuredClone(loadContract());
  edit(doc.components.schemas as never);
  return doc;
}

/** The ContractError a document is refused with. */
function refusal(doc: unknown): ContractError {
  try {
    checkContract(doc);
  } catch (err) {
    if (err instanceof ContractError) return err;
    throw err;
  }
  throw new Error("the contract was not refused");
}

const CITY = "#/components/schemas/CustomerRequest/properties/City";

describe("what a contract may say (A-LIMITS)", () => {
  it("the project's own contract is within every limit", () => {
    expect(() => checkContract(loadContract())).not.toThrow();
  });

  it("an enum of more than MAX_ENUM_VALUES values is refused naming it (300,000 cost 0.4 s per wrong value)", () => {
    const doc = contractWith((s) => {
      s.CustomerRequest!.properties!.City = { enum: Array.from({ length: 300_000 }, (_, i) => `c${i}`) };
    });
    const err = refusal(doc);
    expect(err.where).toBe(`${CITY}/enum`);
    expect(err.message).toBe(
      `${CITY}/enum: 300,000 values, more than the ${MAX_ENUM_VALUES.toLocaleString("en")} one enum may list (A-LIMITS)`,
    );
  });

  it("a schema of more than MAX_SCHEMA_PROPERTIES properties is refused naming it (10,000 took 22 s to start)", () => {
    const doc = contractWith((s) => {
      for (let i = 0; i < 10_000; i++) s.CustomerRequest!.properties![`Extra${i}`] = { type: "string" };
    });
    const err = refusal(doc);
    expect(err.where).toBe("#/components/schemas/CustomerRequest/properties");
    expect(err.message).toContain(`10,055 properties, more than the ${MAX_SCHEMA_PROPERTIES.toLocaleString("en")}`);
  });

  it("a contract of more than MAX_CONTRACT_NODES nodes is refused, naming where the count ran out", () => {
    const doc = contractWith((s) => {
      for (let i = 0; i < MAX_CONTRACT_NODES / 2; i++) s[`Tiny${i}`] = { type: "string" };
    });
    const err = refusal(doc);
    expect(err.message).toMatch(/^#\/components\/schemas\/Tiny\d+\/type: the contract has more than 10,000 nodes/);
  });

  it("nesting deeper than MAX_CONTRACT_DEPTH is refused, in the document and through $refs", () => {
    let deep: JsonSchema = { type: "string" };
    for (let i = 0; i < MAX_CONTRACT_DEPTH; i++) deep = { type: "object", properties: { x: deep } };
    expect(
      refusal(
        contractWith((s) => {
          s.Deep = deep;
        }),
      ).message,
    ).toMatch(/^#\/components\/schemas\/Deep(\/properties\/x)+\/properties: nested more than 64 levels deep/);
    // 400 schemas in a chain, each a few levels: Ajv's compile ran out of stack at about 300.
    const chain = contractWith((s) => {
      for (let i = 0; i < 400; i++) {
        s[`Link${i}`] = { type: "object", properties: { next: { $ref: `#/components/schemas/Link${i + 1}` } } };
      }
      s.Link400 = { type: "string" };
    });
    expect(refusal(chain).message).toMatch(/: its schemas nest more than 64 levels deep with their \$refs followed/);
    // A short chain is fine, and compiles.
    const short = contractWith((s) => {
      for (let i = 0; i < 10; i++) {
        s[`Link${i}`] = { type: "object", properties: { next: { $ref: `#/components/schemas/Link${i + 1}` } } };
      }
      s.Link10 = { type: "string" };
    });
    expect(() => checkContract(short)).not.toThrow();
    expect(new SchemaSet(short).check("Link0", { next: { next: { next: 1 } } })).toEqual([
      { field: "next.next.next", message: "must be of type object" },
    ]);
  });
});

describe("defaults", () => {
  it.each([
    [{ type: "integer", enum: [1, 2, 3], default: 5 }, "the default 5 is not one of its enum's values"],
    [
      { type: ["string", "null"], maxLength: 3, default: "Utrecht" },
      'the default "Utrecht" is longer than its maxLength 3',
    ],
    [{ type: "boolean", default: "yes" }, 'the default "yes" is not of type boolean'],
    [{ type: "integer", default: 1.5 }, "the default 1.5 is not of type integer"],
    [{ type: "number", minimum: 0, default: -1 }, "the default -1 is below its minimum 0"],
    [{ const: "A", default: "B" }, 'the default "B" is not its const'],
  ])("a default its own schema refuses is refused naming it: %j", (city, message) => {
    const err = refusal(contractWith((s) => void Object.assign(s.CustomerRequest!.properties!, { City: city })));
    expect(err.where).toBe(`${CITY}/default`);
    expect(err.message).toBe(
      `${CITY}/default: ${message}: every request that leaves the property out would be refused for a value it never sent`,
    );
  });

  it("a default that fits is fine, null where null is a type, and 😀 is one character of a maxLength", () => {
    for (const city of [
      { type: ["string", "null"], default: null },
      { type: "string", maxLength: 1, default: "😀" },
      { enum: [{ a: 1 }], default: { a: 1 } },
    ])
      expect(() =>
        checkContract(contractWith((s) => void Object.assign(s.CustomerRequest!.properties!, { City: city }))),
      ).not.toThrow();
  });
});

describe("$refs", () => {
  it("a loop of $refs is refused naming its path (it ended in 'Maximum call stack size exceeded')", () => {
    const doc = contractWith((s) => {
      s.A = { $ref: "#/components/schemas/B" };
      s.B = { $ref: "#/components/schemas/A" };
      s.CustomerRequest!.properties!.City = { $ref: "#/components/schemas/A" };
    });
    const err = refusal(doc);
    expect(err.where).toBe("#/components/schemas/A");
    expect(err.message).toBe(
      "#/components/schemas/A: its $refs loop back to it without reaching a value to check: #/components/schemas/A → B → A",
    );
  });

  it("a loop through allOf is refused too; one through properties descends into the data and is fine", () => {
    const viaAllOf = contractWith((s) => {
      s.A = { allOf: [{ $ref: "#/components/schemas/B" }] };
      s.B = { type: "object", anyOf: [{ $ref: "#/components/schemas/A" }] };
    });
    expect(refusal(viaAllOf).message).toBe(
      "#/components/schemas/A: its $refs loop back to it without reaching a value to check: #/components/schemas/A → #/components/schemas/A/allOf/0 → B → #/components/schemas/B/anyOf/0 → A",
    );
    const tree = contractWith((s) => {
      s.Tree = {
        type: "object",
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/components/schemas/Tree" } },
        },
      };
    });
    expect(() => checkContract(tree)).not.toThrow();
    expect(new SchemaSet(tree).check("Tree", { children: [{ children: [{ name: 1 }] }] })).toEqual([
      { field: "children.0.children.0.name", message: "must be of type string" },
    ]);
  });

  it.each([
    ["#/components/schemas/Nowhere", "names no schema of this document"],
    ["other.yaml#/Customer", "points outside this document"],
  ])("a $ref to %s is refused naming it", (ref, why) => {
    const err = refusal(
      contractWith((s) => {
        s.CustomerRequest!.properties!.City = { $ref: ref };
      }),
    );
    expect(err.where).toBe(`${CITY}/$ref`);
    expect(err.message).toContain(why);
  });
});

describe("patterns (linear time)", () => {
  it("a pattern with lookaround or a backreference is refused at the start, naming it and its place", () => {
    for (const pattern of ["^(?=a)a$", "^(a)\\1$"]) {
      const err = refusal(
        contractWith((s) => {
          s.CustomerRequest!.properties!.City = { type: "string", pattern };
        }),
      );
      expect(err.where).toBe(`${CITY}/pattern`);
      expect(err.message).toContain(`the pattern ${JSON.stringify(pattern)} can not be used: a linear-time engine`);
    }
    const broken = refusal(
      contractWith((s) => {
        s.CustomerRequest!.properties!.City = { pattern: "(" };
      }),
    );
    expect(broken.message).toContain("it is no ECMAScript regular expression");
  });

  it("a pattern of more than MAX_PATTERN_SIZE instructions is refused, saying how large it is", () => {
    const err = refusal(
      contractWith((s) => {
        s.CustomerRequest!.properties!.City = { type: "string", pattern: "^[a-z]{1000}$" };
      }),
    );
    expect(err.message).toMatch(
      new RegExp(`takes 1,00\\d instructions of the linear-time engine, more than the ${MAX_PATTERN_SIZE}`),
    );
  });

  it("a pattern whose terms alone are far past it is refused without being compiled, saying at least how large", () => {
    // A review's: a repeat of 1,000 over 600 empty groups took re2js 5 to 23 s to compile.
    const pattern = `^(?:a|a|a)(?:b${"()".repeat(600)}){1000}c`;
    expect(termsAtLeast(pattern)).toBe(4 + 1000 * 602);
    expect(termsAtLeast("^[a-z]{1000}$")).toBe(1002);
    expect(termsAtLeast("[0-9]+x*")).toBe(4);
    const err = refusal(
      contractWith((s) => {
        s.CustomerRequest!.properties!.City = { type: "string", pattern };
      }),
    );
    expect(err.message).toMatch(
      new RegExp(`takes at least 602,004 instructions of the linear-time engine, more than the ${MAX_PATTERN_SIZE}`),
    );
  });

  it("a `pattern` in an example is data, not a pattern", () => {
    const doc = contractWith((s) => {
      s.CustomerRequest!.example = { pattern: "(?=never checked)" };
    });
    (doc.components as Record<string, unknown>).examples = { Odd: { value: { pattern: "(?=nor this)" } } };
    expect(() => checkContract(doc)).not.toThrow();
  });

  it("^(a+)+$ over 100,000 characters: linear time, where a backtracking engine never ends", async () => {
    // In a process of its own: a backtracking engine would hold this one's loop, timeouts and all.
    const script = `import { SchemaSet } from ${JSON.stringify(resolve(PROJECT_ROOT, "src/contract/contract.ts"))};
const schemas = new SchemaSet({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {},
  components: { schemas: { Evil: { type: "string", pattern: "^(a+)+$" } } } });
console.log(JSON.stringify([schemas.check("Evil", "a".repeat(100000) + "!"), schemas.check("Evil", "a".repeat(100000))]));`;
    const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual([[{ field: "", message: "must match ^(a+)+$" }], []]);
  }, 60_000);

  it("a pattern means what ECMAScript says: `.`, \\s, \\S, [] and [^] included", () => {
    const patterns = [
      "^.$",
      "^\\s+$",
      "^\\S+$",
      "^[\\s,;]*$",
      "^[]$",
      "^[^]+$",
      "^[^a-c.]+$",
      "^\\u00e9?\\d{1,3}(?<tail>x|y)?$",
      "^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/[0-9]{4}$",
      "\\bword\\b",
      "^[\\p{L}]+$",
    ];
    const chars = [
      "a",
      "b",
      "x",
      "é",
      "1",
      "/",
      ".",
      ",",
      " ",
      "\t",
      "\n",
      "\r",
      "\v",
      "\u00a0",
      "\u2028",
      "\u3000",
      "\ufeff",
      "😀",
      "w",
      "o",
      "r",
      "d",
    ];
    fc.assert(
      fc.property(fc.constantFrom(...patterns), fc.array(fc.constantFrom(...chars), { maxLength: 8 }), (p, cs) => {
        const text = cs.join("");
        const ecma = new RegExp(p, "u").test(text);
        // re2js as the translation gives it the pattern, and the engine the contract's checks use.
        expect(re2Pattern(p).test(text), `re2js: ${p} ${JSON.stringify(text)}`).toBe(ecma);
        expect(linearPattern(p).test(text), `${p} ${JSON.stringify(text)}`).toBe(ecma);
      }),
      { numRuns: 3_000 },
    );
  });

  it("a re2js pattern answers the text it tested last as it did, and any other text anew", () => {
    const p = linearPattern("^[0-9]+$");
    expect(p.engine).toBe("re2");
    const long = "1".repeat(300);
    const answers = ["12", "12", "1a", "12", "", `${long}a`, long, `${long}a`].map((t) => p.test(t));
    expect(answers).toEqual([true, true, false, true, false, false, true, false]);
  });

  it("a pattern whose backtracking is bounded whatever the text runs on JavaScript's engine; any other on re2js", () => {
    // The contract's own patterns, derived: each bounded one is anchored and counted.
    const own = new Set<string>();
    JSON.stringify(loadContract(), (k, v) => (k === "pattern" && typeof v === "string" ? own.add(v) : v));
    expect(own.size).toBeGreaterThan(0);
    const engines = Object.fromEntries([...own].map((p) => [p, linearPattern(p).engine]));
    expect(engines["^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/[0-9]{4}$"]).toBe("native");
    // 12 ways of matching a date, each passing at most 14 terms: ^, a group's entry and 2, /, the
    // same, /, four digits, $.
    expect(backtrackingSteps("^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/[0-9]{4}$")).toBe(12 * 14);
    for (const [p, engine] of Object.entries({
      "^[A-Za-z0-9_-]{0,8}$": "native",
      "^[Bb][Ee][Aa][Rr][Ee][Rr]( |$)": "native",
      "^a|^b": "native",
      "^\\u00e9?\\d{1,3}(?<tail>x|y)?$": "native",
      "^[\\]a(]{2}$": "native",
      // No bound: a repeat without an end, a start not anchored, an alternative not anchored.
      "^[0-9]+$": "re2",
      "^(a+)+$": "re2",
      "^a{2,}$": "re2",
      "a{1,5}": "re2",
      "^a|b": "re2",
      "no-store": "re2",
      // A bound, but past NATIVE_STEPS: 100 ways of 70 terms, within the 100 instructions (188 µs a
      // check on JavaScript's engine, a step of \P{Cn} over astral text up to 37 ns).
      "^\\P{Cn}{0,9}\\P{Cn}{0,9}\\P{Cn}{50}0": "re2",
      // A bound, but past NATIVE_STEPS: 2 + 4 + ... + 2^30 ways.
      "^(a|a){1,30}$": "re2",
      // A review's: 3 ways, but each passes the body's 601 terms 1,000 times (5 ms a match on RegExp).
      [`^(?:a|a|a)(?:b${"()".repeat(600)}){1000}c`]: "re2",
    })) {
      expect(linearPattern(p).engine, p).toBe(engine);
    }
    expect(backtrackingSteps("^(a|a){1,30}$")).toBeGreaterThan(NATIVE_STEPS);
    expect(backtrackingSteps("^\\P{Cn}{0,9}\\P{Cn}{0,9}\\P{Cn}{50}0")).toBe(100 * 70);
    expect(100 * 70).toBeGreaterThan(NATIVE_STEPS);
    // Where a backtracking engine takes 2^30 steps, re2js answers at once.
    expect(linearPattern("^(a|a){1,30}$").test(`${"a".repeat(29)}b`)).toBe(false);
  });

  it("a pattern is not run on a text longer than the same schema's maxLength: refused either way, for less", () => {
    const doc = contractWith((s) => {
      s.Code = { type: "string", maxLength: 8, pattern: "^[A-Z]+$" };
    });
    const schemas = new SchemaSet(doc);
    expect(schemas.check("Code", "abc")).toEqual([{ field: "", message: "must match ^[A-Z]+$" }]);
    expect(schemas.check("Code", "a".repeat(100_000))).toEqual([
      { field: "", message: "must NOT have more than 8 characters" },
    ]);
  });
});

describe("messages about enums", () => {
  it("name the first 20 values and how many there are, not all 1,000 (300,000 answered 4.7 MB)", () => {
    const doc = contractWith((s) => {
      s.Big = { enum: Array.from({ length: MAX_ENUM_VALUES }, (_, i) => `value-${i}`) };
    });
    const [problem] = new SchemaSet(doc).check("Big", "nope");
    expect(problem!.message).toBe(
      `must be one of ${Array.from({ length: 20 }, (_, i) => `"value-${i}"`).join(", ")}, ... (1,000 values)`,
    );
    expect(new SchemaSet(doc).check("Big", "value-999")).toEqual([]);
  });
});

describe("the contract's file", () => {
  const write = (name: string, doc: OpenApiDocument | string) => {
    const path = join(dir, name);
    writeFileSync(path, typeof doc === "string" ? doc : stringify(doc));
    return path;
  };

  it("is read and checked together: a refusal names the node", () => {
    const path = write(
      "loop.yaml",
      contractWith((s) => {
        s.A = { allOf: [{ $ref: "#/components/schemas/A" }] };
      }),
    );
    expect(() => loadContract(path)).toThrow(
      "#/components/schemas/A: its $refs loop back to it without reaching a value to check: #/components/schemas/A → #/components/schemas/A/allOf/0 → A",
    );
  });

  it("of more than MAX_CONTRACT_BYTES is refused before it is read", () => {
    const text = `${stringify(loadContract())}\n# ${"x".repeat(MAX_CONTRACT_BYTES)}\n`;
    expect(() => loadContract(write("large.yaml", text))).toThrow(
      /^#: .*large\.yaml has 4,2\d\d,\d\d\d bytes, more than the 4,194,304 bawa reads \(A-LIMITS\)$/,
    );
  });
});
