// JSON and XML payloads, chosen with Accept. The XML form must carry the
// described fields with the JSON form's values; fields an implementation adds
// beyond the description are left out of the comparison.
import { aCustomer, customerBody, getCustomer, uniqueName } from "../lib/customers.ts";
import { readXml, xmlText } from "../lib/shapes.ts";
import { covers, expect, test } from "../lib/test.ts";

test("Accept application/json answers JSON", covers("SVC-FORMATS"), async ({ api, target, session }) => {
  const auth = await session.auth();
  const { id, done } = await aCustomer(api, target, auth);
  const res = await getCustomer(api, target, auth, id, "application/json");
  await done();
  expect(res.headers["content-type"] ?? "").toMatch(/^application\/json/);
  expect(() => res.json()).not.toThrow();
});

for (const type of ["application/xml", "text/xml"]) {
  test(
    `Accept ${type} answers XML with the same field names and values as JSON`,
    covers("SVC-FORMATS"),
    async ({ api, target, session, findings }) => {
      await findings.require({ names: true, dates: true });
      const auth = await session.auth();
      const { id, done } = await aCustomer(api, target, auth, customerBody(uniqueName(), { Street2: null }));
      const json = findings.view((await getCustomer(api, target, auth, id, "application/json")).json());
      const res = await getCustomer(api, target, auth, id, type);
      await done();
      expect(res.status, res.call).toBe(200);
      expect(res.headers["content-type"] ?? "", "an XML media type").toMatch(/^(application|text)\/xml/);
      const xml = findings.view(readXml(res.text).fields);
      const differences: string[] = [];
      for (const [name, value] of Object.entries(json)) {
        if (!(name in xml)) differences.push(`${name} is missing`);
        else if (typeof value === "object" && value !== null) continue;
        else if (xml[name] !== xmlText(value)) {
          differences.push(`${name} is ${JSON.stringify(xml[name])} in XML, ${JSON.stringify(value)} in JSON`);
        }
      }
      expect(differences, "XML and JSON forms differ in the described fields").toEqual([]);
    },
  );
}
