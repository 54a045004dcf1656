// Our assumptions about payloads (openapi/ASSUMPTIONS.md), checked with the full contract.
import { readXml } from "../../src/rules/xml.ts";
import {
  createCustomer,
  customerBody,
  customerUrl,
  deleteCustomer,
  getCustomer,
  infoListUrl,
  postCustomer,
  putCustomer,
  uniqueName,
} from "../lib/customers.ts";
import { send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { resources, urlOf } from "../lib/resources.ts";
import { describeProblems } from "../lib/shapes.ts";
import { checks, coversWriting, expect, expectSucceeded, test } from "../lib/test.ts";

/** The names of an XML text's root element and of its first child element. */
const elementNames = (xml: string): [string, string | undefined] => {
  const { root, fields } = readXml(xml);
  return [root, Object.keys(fields)[0]];
};

checks(() => {
  test("a body without Name is 400", coversWriting("A-REQUIRED"), async ({ api, target, session }) => {
    const res = await postCustomer(api, target, await session.auth(), { City: "Zwolle" });
    expect(res.status, `${res.call} without Name: ${res.text.slice(0, 200)}`).toBe(400);
  });

  test(
    "the 400 of a body without Name is the ASP.NET error shape, ModelState naming Name",
    coversWriting("A-ERROR-BODY"),
    async ({ api, target, session, contract }) => {
      const res = await postCustomer(api, target, await session.auth(), { City: "Zwolle" });
      test.skip(res.status !== 400, `${NOT_CHECKED}A-REQUIRED: ${res.call} without Name answered ${res.status}`);
      const problems = contract.full.check("Error", res.json());
      expect(problems, describeProblems(problems)).toEqual([]);
      expect(res.json().ModelState, "the error body's ModelState").toBeInstanceOf(Object);
      expect(Object.keys(res.json().ModelState)).toEqual(["customer.Name"]);
    },
  );

  test(
    "a wrong type is 400 and ModelState names the field",
    coversWriting("A-ERROR-BODY"),
    async ({ api, target, session }) => {
      const res = await postCustomer(
        api,
        target,
        await session.auth(),
        customerBody(uniqueName(target.namePrefix), { CreditLimit: "veel" }),
      );
      expect(res.status).toBe(400);
      expect(res.json().ModelState, "the error body's ModelState").toBeInstanceOf(Object);
      expect(res.json().ModelState["customer.CreditLimit"]?.[0], "ModelState of customer.CreditLimit").toMatch(
        /CreditLimit/,
      );
    },
  );

  test(
    "XML is DataContract style and reads back to the JSON value; a DTD is refused",
    coversWriting("A-XML-MAPPING"),
    async ({ api, target, session, contract }) => {
      const auth = await session.auth();
      const { id } = await createCustomer(api, target, auth, customerBody(uniqueName(target.namePrefix)));
      const json = (await getCustomer(api, target, auth, id)).json();
      const xml = await getCustomer(api, target, auth, id, "application/xml");
      expect(xml.text).toMatch(/<Customer xmlns:i="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance">/);
      expect(xml.text).toMatch(/<Fax i:nil="true"\/>/);
      expect(contract.compiled.xml.parse("Customer", xml.text)).toEqual(json);
      const list = await send(api, "GET", infoListUrl(target), { headers: { ...auth, accept: "text/xml" } });
      expect(list.text).toMatch(/<ArrayOfCustomerInfo [^>]*><CustomerInfo>/);
      // Every list's XML names its array and its items as the contract's xml names say (a list of
      // another resource written as ArrayOfAdministration passed when only the customers' was read).
      const names: string[] = [];
      for (const r of resources("list", "name-value-list")) {
        const op = r.op.list!;
        const xml = await send(api, "GET", urlOf(target, op), { headers: { ...auth, accept: "application/xml" } });
        if (xml.status !== 200) continue;
        const sample = contract.compiled.xml.stringify(op.answers, [{}]);
        const [root, item] = elementNames(sample);
        const [gotRoot, gotItem] = elementNames(xml.text);
        if (gotRoot !== root || (gotItem !== undefined && gotItem !== item))
          names.push(`${xml.call}: <${gotRoot}><${gotItem ?? ""}>, the contract's <${root}><${item}>`);
      }
      expect(names, names.join("; ")).toEqual([]);
      const dtd = await send(api, "PUT", customerUrl(target, id), {
        headers: { ...auth, "content-type": "application/xml" },
        body: `<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/hostname">]><Customer><Name>&x;</Name></Customer>`,
      });
      expect(dtd.status).toBe(400);
      await deleteCustomer(api, target, auth, id);
    },
  );

  test(
    "a missing or unknown Accept gets JSON; a form body is 415",
    coversWriting("A-MEDIA-TYPES"),
    async ({ api, target, session }) => {
      const authorization = `Bearer ${await session.accessToken()}`;
      for (const accept of [undefined, "image/png"]) {
        const res = await send(api, "GET", infoListUrl(target), {
          headers: { authorization, ...(accept ? { accept } : {}) },
        });
        expect(res.headers["content-type"], `Accept ${accept}`).toMatch(/^application\/json/);
      }
      const form = await send(api, "POST", customerUrl(target), {
        headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
        body: "Name=X",
      });
      expect(form.status).toBe(415);
    },
  );

  test(
    "dates without leading zeros are accepted and written MM/dd/yyyy; a date that does not exist is 400",
    coversWriting("A-DATES"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const { id } = await createCustomer(
        api,
        target,
        auth,
        customerBody(uniqueName(target.namePrefix), { CocDate: "3/1/2020" }),
      );
      expect((await getCustomer(api, target, auth, id)).json().CocDate).toBe("03/01/2020");
      await deleteCustomer(api, target, auth, id);
      expect(
        (await postCustomer(api, target, auth, customerBody(uniqueName(target.namePrefix), { CocDate: "02/30/2020" })))
          .status,
      ).toBe(400);
    },
  );

  test(
    "POST and PUT answer the stored customer; DELETE answers an empty body",
    coversWriting("A-WRITE-RESPONSE"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const name = uniqueName(target.namePrefix);
      const { id, reply } = await createCustomer(api, target, auth, customerBody(name));
      expect(reply.json()).toMatchObject({ Name: name, CustomerId: id });
      expect(
        (await putCustomer(api, target, auth, id, customerBody(name, { CustomerId: id, City: "Ede" }))).json(),
      ).toMatchObject({ City: "Ede" });
      expect((await deleteCustomer(api, target, auth, id)).text).toBe("");
    },
  );

  test(
    "a body over 1 MiB is 413; a long Name or too many Addresses is 400 naming the field",
    coversWriting("A-LIMITS"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const big = await postCustomer(api, target, auth, customerBody("x".repeat(1024 * 1024 + 10)));
      expect(big.status).toBe(413);
      const long = await postCustomer(api, target, auth, customerBody("N".repeat(41)));
      expect(long.status).toBe(400);
      expect(Object.keys(long.json().ModelState ?? {})).toEqual(["customer.Name"]);
      const addresses = await postCustomer(
        api,
        target,
        auth,
        customerBody(uniqueName(target.namePrefix), { Addresses: Array(51).fill({}) }),
      );
      expect(addresses.status).toBe(400);
      expect(Object.keys(addresses.json().ModelState ?? {})).toEqual(["customer.Addresses"]);
    },
  );

  test(
    "a CustomerId other than 1 to 8 letters, digits, _ or -, or one in use, is 400; automatic ids are distinct; OrganizationId is kept",
    coversWriting("A-CUSTOMER-IDS"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      for (const id of ["a/b", "..", "123456789", "x.json"]) {
        const res = await postCustomer(
          api,
          target,
          auth,
          customerBody(uniqueName(target.namePrefix), { CustomerId: id }),
        );
        expect(res.status, id).toBe(400);
        expect(Object.keys(res.json().ModelState ?? {}), id).toEqual(["customer.CustomerId"]);
      }
      const firstName = uniqueName(target.namePrefix);
      const first = await createCustomer(api, target, auth, customerBody(firstName));
      const second = await createCustomer(api, target, auth, customerBody(uniqueName(target.namePrefix)));
      // A chosen id is kept only when it is free: one in use is 400, and its customer stays as it was
      // (a server that replaced it passed a check of malformed ids alone).
      const taken = await postCustomer(
        api,
        target,
        auth,
        customerBody(uniqueName(target.namePrefix), { CustomerId: first.id }),
      );
      const stored = (await getCustomer(api, target, auth, first.id)).json();
      // OrganizationId: the service's on create, kept on update whatever the body says.
      const organization = stored?.OrganizationId;
      const put = await putCustomer(api, target, auth, first.id, {
        ...customerBody(firstName),
        CustomerId: first.id,
        OrganizationId: (typeof organization === "number" ? organization : 0) + 7919,
      });
      const afterPut = (await getCustomer(api, target, auth, first.id)).json();
      if (taken.status === 200 && taken.json()?.CustomerId !== first.id) {
        const madeId = taken.json()?.CustomerId;
        if (typeof madeId === "string" && madeId !== "") await deleteCustomer(api, target, auth, madeId);
      }
      await deleteCustomer(api, target, auth, first.id);
      await deleteCustomer(api, target, auth, second.id);
      expect(first.id).not.toBe(second.id);
      expect(taken.status, `POST naming ${first.id}, an id in use: ${taken.text.slice(0, 200)}`).toBe(400);
      expect(stored?.Name, `${first.id} after a POST naming its id`).toBe(firstName);
      expectSucceeded(put, put.call);
      expect(afterPut?.OrganizationId, "OrganizationId after a PUT that sent another").toBe(organization);
    },
  );

  test(
    "camelCase properties bind to their fields; a field sent twice is 400",
    coversWriting("A-NAMES"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const name = uniqueName(target.namePrefix);
      const { id } = await createCustomer(api, target, auth, { name, city: "Gouda", creditLimit: 12.5 });
      const stored = (await getCustomer(api, target, auth, id)).json();
      await deleteCustomer(api, target, auth, id);
      expect(stored).toMatchObject({ Name: name, City: "Gouda", CreditLimit: 12.5 });
      const twice = await postCustomer(api, target, auth, {
        Name: uniqueName(target.namePrefix),
        name: uniqueName(target.namePrefix),
      });
      expect(twice.status).toBe(400);
    },
  );

  test(
    "properties that bind to no field are ignored and named",
    coversWriting("A-UNKNOWN-PROPERTIES"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const res = await postCustomer(api, target, auth, {
        ...customerBody(uniqueName(target.namePrefix)),
        Regio: "Noord",
      });
      const id = res.status === 200 ? res.json().CustomerId : undefined;
      if (id) await deleteCustomer(api, target, auth, id);
      expectSucceeded(res);
      expect(res.headers["x-bawa-ignored-properties"]).toBe("Regio");
    },
  );
});
