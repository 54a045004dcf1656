// The judge reads every exchange bawa proxy forwards: its readings stay cheap. On Node 20's V8 an
// object literal that begins with a spread writes each member after it through a runtime call
// (see Judged in step.ts); a data call's readings wrote 17 such, half the judge's time. One member
// after a leading spread (`{ ...step, run }` built once, `{ ...j, path }` of a page) is let be;
// two or more is the pattern, and this names where it came back.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const DIR = import.meta.dirname;

/** `file:line` of each object literal that begins with a spread and has two or more members after it. */
function spreadsFirst(file: string, text = readFileSync(join(DIR, file), "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const [first, ...rest] = node.properties;
      if (first && ts.isSpreadAssignment(first) && rest.length >= 2) {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it("no object literal of the judge writes members after a leading spread", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
  expect(files).toContain("data.ts");
  expect(files.flatMap((f) => spreadsFirst(f))).toEqual([]);
});

it("names a reading written the slow way, and lets one member after a spread be", () => {
  const text = [
    "export const slow = (j: object) => ({ ...j, db: 1, token: 2 });",
    "export const fast = (j: object) => ({ db: 1, token: 2, ...j });",
    "export const once = (s: object) => ({ ...s, run: 1 });",
  ].join("\n");
  expect(spreadsFirst("probe.ts", text)).toEqual(["probe.ts:1"]);
});
