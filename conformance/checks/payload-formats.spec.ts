// JSON and XML payloads, chosen with Accept.
import { createCustomer, customerBody, deleteCustomer, getCustomer, uniqueName } from "../lib/customers.ts";
import { covers, expect, test } from "../lib/fixtures.ts";
import { readXml, xmlText } from "../lib/shapes.ts";

test("Accept application/json answers JSON", covers("SVC-FORMATS"), async ({ api, target, session }) => {
  const auth = await session.auth();
  const { id } = await createCustomer(api, target, auth, customerBody(uniqueName()));
  const res = await getCustomer(api, target, auth, id, "application/json");
  await deleteCustomer(api, target, auth, id);
  expect(res.headers["content-type"] ?? "").toMatch(/^application\/json/);
  expect(() => res.json()).not.toThrow();
});

for (const type of ["application/xml", "text/xml"]) {
  test(
    `Accept ${type} answers XML with the same field names and values as JSON`,
    covers("SVC-FORMATS"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const { id } = await createCustomer(api, target, auth, customerBody(uniqueName(), { Street2: null }));
      const json = (await getCustomer(api, target, auth, id, "application/json")).json() as Record<string, unknown>;
      const res = await getCustomer(api, target, auth, id, type);
      await deleteCustomer(api, target, auth, id);
      expect(res.status, res.call).toBe(200);
      expect(res.headers["content-type"] ?? "", "an XML media type").toMatch(/^(application|text)\/xml/);
      const xml = readXml(res.text);
      const differences: string[] = [];
      for (const [name, value] of Object.entries(json)) {
        if (typeof value === "object" && value !== null) {
          if (!(name in xml.fields)) differences.push(`${name} is missing`);
          continue;
        }
        if (!(name in xml.fields)) differences.push(`${name} is missing`);
        else if (xml.fields[name] !== xmlText(value))
          differences.push(`${name} is ${JSON.stringify(xml.fields[name])} in XML, ${JSON.stringify(value)} in JSON`);
      }
      expect(differences, "XML and JSON forms differ").toEqual([]);
    },
  );
}
