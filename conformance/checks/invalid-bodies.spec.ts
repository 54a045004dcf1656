// Bodies that do not fit the contract, generated from its request schema: each
// must be refused with 400, never accepted (2xx) and never crash the target (5xx).
import { customerBody, customerUrl, deleteCustomer, uniqueName } from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import {
  assertProperty,
  malformedDateBodies,
  malformedJson,
  malformedXml,
  wrongTypeBodies,
} from "../lib/invalid-bodies.ts";
import { coversWriting, expect, test } from "../lib/test.ts";

type Auth = Record<string, string>;

async function expect400(
  api: Parameters<typeof send>[0],
  t: Parameters<typeof customerUrl>[0],
  auth: Auth,
  body: string,
  type: string,
  what: string,
) {
  const res = await send(api, "POST", customerUrl(t), { headers: { ...auth, "content-type": type }, body });
  if (res.status >= 200 && res.status < 300) {
    const id = (() => {
      try {
        return res.json().CustomerId;
      } catch {
        return undefined;
      }
    })();
    if (id) await deleteCustomer(api, t, auth, id);
  }
  expect(res.status, `${what}: answered ${res.status} ${res.text.slice(0, 200)}`).toBe(400);
}

/** Each JSON body, with the field it spoils, must be refused with 400. */
const eachJsonRefused =
  (api: Parameters<typeof send>[0], t: Parameters<typeof customerUrl>[0], auth: Auth) =>
  ({ field, body }: { field: string; body: Record<string, unknown> }) =>
    expect400(api, t, auth, JSON.stringify(body), "application/json", `${field} = ${JSON.stringify(body[field])}`);

test(
  "a property of the wrong type is 400",
  coversWriting("A-INVALID-BODIES"),
  async ({ api, target, session, contract }) => {
    await assertProperty(
      wrongTypeBodies(contract.compiled.doc, customerBody(uniqueName())),
      eachJsonRefused(api, target, await session.auth()),
    );
  },
);

test(
  "a date that is not month/day/year is 400",
  coversWriting("A-INVALID-BODIES"),
  async ({ api, target, session, contract }) => {
    await assertProperty(
      malformedDateBodies(contract.compiled.doc, customerBody(uniqueName())),
      eachJsonRefused(api, target, await session.auth()),
    );
  },
);

test("malformed JSON is 400", coversWriting("A-INVALID-BODIES"), async ({ api, target, session }) => {
  const auth = await session.auth();
  await assertProperty(malformedJson(customerBody(uniqueName())), async (text) =>
    expect400(api, target, auth, text, "application/json", `JSON ${JSON.stringify(text.slice(-60))}`),
  );
});

test("malformed XML is 400", coversWriting("A-INVALID-BODIES"), async ({ api, target, session, contract }) => {
  const auth = await session.auth();
  const xml = contract.compiled.xml.stringify("CustomerRequest", customerBody(uniqueName()));
  await assertProperty(malformedXml(xml), async (text) =>
    expect400(api, target, auth, text, "application/xml", `XML ending ${JSON.stringify(text.slice(-60))}`),
  );
});
