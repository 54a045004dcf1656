// The answer codes are one list so that a fault switch naming a code the mock never answers with
// does not compile; that holds only while every code of the list is one the mock answers with.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { PROJECT_ROOT } from "../../paths.ts";
import { ANSWER_CODES } from "./answer-codes.ts";

/** The mock's own sources: everything under src/mock but tests, the list itself and the fault switches. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "faults" ? [] : sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && e.name !== "answer-codes.ts" ? [path] : [];
  });
}

it("every answer code is one the mock answers with somewhere", () => {
  const files = sources(join(PROJECT_ROOT, "src/mock"));
  expect(files.length).toBeGreaterThan(10);
  const text = files.map((f) => readFileSync(f, "utf8")).join("\n");
  const unused = ANSWER_CODES.filter((code) => !text.includes(`"${code}"`));
  expect(unused, `codes none of the mock's ${files.length} source files answers with`).toEqual([]);
});
