// An info list whose item schema has a field its editable resource lacks can not show that
// resource's objects: the mock keeps it as read-only data of its own and says so, at start-up
// (src/cli/mock.ts) and on the dashboard (GET /__mock/resources, its "detached" list).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { CONTRACT_PATH, compileContract } from "../../contract/index.ts";
import { buildMock } from "../index.ts";
import { call } from "../testing.ts";

const dir = mkdtempSync(join(tmpdir(), "bawa-detached-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("the dashboard's resources name an info list that shows data of its own, and why", () => {
  const doc = parse(readFileSync(CONTRACT_PATH, "utf8"));
  doc.components.schemas.CustomerInfo.properties.Colour = { type: "string" };
  const file = join(dir, "openapi.yaml");
  writeFileSync(file, stringify(doc));
  const mock = buildMock({ contract: compileContract(file), seedOptions: { strict: false } });
  const res = call(mock, "GET", "/__mock/resources");
  expect(res.status).toBe(200);
  expect(res.json().detached).toEqual([
    expect.objectContaining({
      resource: "CustomerInfoList",
      editable: "Customer",
      why: "Colour is not a property of Customer",
    }),
  ]);
  // The project's contract has none.
  expect(call(buildMock(), "GET", "/__mock/resources").json().detached).toEqual([]);
});
