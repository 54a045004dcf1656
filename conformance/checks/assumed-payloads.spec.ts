// Our assumptions about payloads (openapi/ASSUMPTIONS.md), checked with the full contract.
import { readXml } from "../../src/rules/xml.ts";
import type { Target } from "../lib/config.ts";
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
import { type Api, type Reply, send } from "../lib/http.ts";
import { NOT_CHECKED } from "../lib/requirements.ts";
import { lifecycle, resources, urlOf } from "../lib/resources.ts";
import { describeProblems } from "../lib/shapes.ts";
import { checks, coversWriting, expect, expectSucceeded, test } from "../lib/test.ts";

/** The names of an XML text's root element and of its first child element. */
const elementNames = (xml: string): [string, string | undefined] => {
  const { root, fields } = readXml(xml);
  return [root, Object.keys(fields)[0]];
};

/** Deletes the customer a create that should have been refused made anyway. */
const removeIfMade = (api: Api, t: Target, auth: Record<string, string>, res: Reply): Promise<void> =>
  lifecycle(api, t, resources("editable").find((r) => r.collection.name === "Customer")!, auth).removeIfMade(res);

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
    "a wrong type is 400 and ModelState names the field, in a create and in a replacement",
    coversWriting("A-ERROR-BODY"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const name = uniqueName(target.namePrefix);
      const posted = await postCustomer(api, target, auth, customerBody(name, { CreditLimit: "veel" }));
      // A replacement too: a PUT's binder may name its parameter otherwise (`value.CreditLimit`).
      const { id } = await createCustomer(api, target, auth, customerBody(name));
      const put = await putCustomer(api, target, auth, id, customerBody(name, { CustomerId: id, CreditLimit: "veel" }));
      await deleteCustomer(api, target, auth, id);
      await removeIfMade(api, target, auth, posted);
      for (const res of [posted, put]) {
        expect(res.status, res.call).toBe(400);
        expect(res.json().ModelState, `${res.call}: the error body's ModelState`).toBeInstanceOf(Object);
        expect(Object.keys(res.json().ModelState), `${res.call}: ModelState's keys`).toEqual(["customer.CreditLimit"]);
        expect(res.json().ModelState["customer.CreditLimit"]?.[0], `${res.call}: customer.CreditLimit`).toMatch(
          /CreditLimit/,
        );
      }
    },
  );

  test(
    "an error asked for in XML is an Error element, ModelState naming the field",
    coversWriting("A-ERROR-BODY"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const xml = { ...auth, accept: "application/xml" };
      // Errors follow Accept as answers do: a server that wrote every error in JSON passed when
      // errors were asked for in JSON alone.
      const missing = await send(api, "POST", customerUrl(target), {
        headers: { ...xml, "content-type": "application/json" },
        body: JSON.stringify({ City: "Zwolle" }),
      });
      const absent = await send(api, "GET", customerUrl(target, "ZZnone"), { headers: xml });
      await removeIfMade(api, target, auth, missing);
      const wrong: string[] = [];
      for (const [res, status] of [
        [missing, 400],
        [absent, 404],
      ] as const) {
        if (res.status !== status) {
          wrong.push(`${res.call} answered ${res.status}, not ${status}`);
          continue;
        }
        let root = "";
        let fields: Record<string, unknown> = {};
        try {
          ({ root, fields } = readXml(res.text));
        } catch (err) {
          wrong.push(`${res.call}: not XML (${(err as Error).message}): ${res.text.slice(0, 120)}`);
          continue;
        }
        if (!/^application\/xml/.test(res.headers["content-type"] ?? ""))
          wrong.push(`${res.call}: Content-Type ${res.headers["content-type"]}`);
        if (root !== "Error" || typeof fields.Message !== "string")
          wrong.push(
            `${res.call}: <${root}> with ${Object.keys(fields).join(", ") || "nothing"}, not <Error><Message>`,
          );
        if (res === missing) {
          const model = fields.ModelState;
          const keys = typeof model === "object" && model !== null ? Object.keys(model) : [];
          if (!keys.includes("customer.Name"))
            wrong.push(`${res.call}: ModelState names ${keys.join(", ") || "nothing"}`);
        }
      }
      expect(wrong, wrong.join("; ")).toEqual([]);
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
      // Character references are XML's own: read as the characters they stand for, never kept as
      // written (a reader that decoded only &amp; and its kin passed a body without them).
      const city = "Caf&#233; &#x41;&amp;&#128512;";
      const body = contract.compiled.xml
        .stringify("CustomerRequest", { ...customerBody(json.Name), CustomerId: id, City: "CITY" })
        .replace(">CITY<", `>${city}<`);
      const refs = await send(api, "PUT", customerUrl(target, id), {
        headers: { ...auth, "content-type": "application/xml", accept: "application/json" },
        body,
      });
      const city2 = (await getCustomer(api, target, auth, id)).json()?.City;
      const dtd = await send(api, "PUT", customerUrl(target, id), {
        headers: { ...auth, "content-type": "application/xml" },
        body: `<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/hostname">]><Customer><Name>&x;</Name></Customer>`,
      });
      await deleteCustomer(api, target, auth, id);
      expectSucceeded(refs, refs.call);
      expect(city2, `City written ${city}`).toBe("Café A&😀");
      expect(dtd.status).toBe(400);
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
      // 29 February only in a leap year: a reader that took it in every year passed when only
      // 30 February was sent.
      const leap = await putCustomer(
        api,
        target,
        auth,
        id,
        customerBody(uniqueName(target.namePrefix), { CustomerId: id, CocDate: "2/29/2024" }),
      );
      const leapRead = (await getCustomer(api, target, auth, id)).json()?.CocDate;
      await deleteCustomer(api, target, auth, id);
      expectSucceeded(leap, leap.call);
      expect(leapRead, "CocDate 2/29/2024").toBe("02/29/2024");
      for (const date of ["02/30/2020", "2/29/2023", "02/29/1900", "13/01/2020", "00/10/2020", "04/31/2021"]) {
        const res = await postCustomer(
          api,
          target,
          auth,
          customerBody(uniqueName(target.namePrefix), { CocDate: date }),
        );
        await removeIfMade(api, target, auth, res);
        expect(res.status, `CocDate ${date}`).toBe(400);
      }
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
      // Nested too: an address's fields bind the same way and are answered as the contract names
      // them (a server that answered Addresses' items camelCase passed a check of the top level).
      const { id } = await createCustomer(api, target, auth, {
        name,
        city: "Gouda",
        creditLimit: 12.5,
        addresses: [{ street1: "Markt 1", city: "Gouda", addressType: "post" }],
      });
      const stored = (await getCustomer(api, target, auth, id)).json();
      await deleteCustomer(api, target, auth, id);
      expect(stored).toMatchObject({ Name: name, City: "Gouda", CreditLimit: 12.5 });
      expect(stored.Addresses?.[0], "Addresses' item, sent camelCase").toMatchObject({
        Street1: "Markt 1",
        City: "Gouda",
        AddressType: "post",
      });
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
