// Bodies that do not fit the contract, generated from each editable resource's
// request schema: each must be refused with 400, never accepted (2xx) and never
// crash the target (5xx). One row per editable resource of the contract.
//
// How each is classified (the description shows one resource, the customer):
// - A body that leaves out a required property: the description's rule ("When a required
//   parameter is missing, then 400"; "Required fields are only indicated by status 400"). For a
//   resource the description does not show, the team's contract is what declares its required
//   properties, so leaving one out is the rule itself: SVC-REQUIRED, kind spec (as SVC-FIELDS is
//   its schema's fields). One with a default is not missing: the service fills it in (requiredOfWrite). The customer's required properties are not shown; its Name is our
//   assumption: A-REQUIRED.
// - A text over its maxLength or under its minLength, a number outside its bounds, a value its enum does not list, a wrong type, a malformed date or
//   document: the description says nothing of what the service does with them (its 400 is for
//   missing parameters only), on any resource, whoever declared the limit: A-INVALID-BODIES, an
//   assumption (the customer's lengths themselves are A-LIMITS). A value the target stores
//   anyway is read back, so the failure says whether it was cut or replaced.
import fc from "fast-check";
import type { CompiledContract } from "../../src/contract/index.ts";
import { valueNamed } from "../../src/rules/names.ts";
import { quote, send } from "../lib/http.ts";
import {
  assertProperty,
  bodiesWithout,
  boundedNumbers,
  dateProperties,
  enumProperties,
  limitedTexts,
  malformedDateBodies,
  malformedJson,
  malformedXml,
  outOfRangeBodies,
  outsideEnumBodies,
  shortenedTexts,
  tooLongBodies,
  tooShortBodies,
  unreadableXmlBodies,
  untextualProperties,
  wrongTypeBodies,
} from "../lib/invalid-bodies.ts";
import { NOT_APPLICABLE, NOT_CHECKED, SUBJECT_ANNOTATION } from "../lib/requirements.ts";
import { bodyOf, lifecycle, type Resource, requiredOf, resources, uniqueName, urlOf } from "../lib/resources.ts";
import { checks, covers, coversWriting, expect, test } from "../lib/test.ts";

checks(() => {
  type Api = Parameters<typeof send>[0];
  type Target = Parameters<typeof urlOf>[0];
  type Auth = Record<string, string>;

  const about = (r: Resource, ids = coversWriting("A-INVALID-BODIES")) => ({
    ...ids,
    annotation: { type: SUBJECT_ANNOTATION, description: r.name },
  });

  /** What became of a value sent, as a target that stored it reads it back. */
  function change(sent: unknown, stored: unknown): string {
    if (stored === undefined) return " (not shown)";
    if (sent === undefined) return " (left out, given this value)";
    if (
      typeof sent === "string" &&
      typeof stored === "string" &&
      stored.length < sent.length &&
      sent.startsWith(stored)
    )
      return ` (cut to ${stored.length} characters)`;
    return JSON.stringify(stored) === JSON.stringify(sent) ? "" : " (not the value sent)";
  }

  /** What a refused body is sent as: a create (POST), or a replacement (PUT) of the object `replacing` names. */
  interface Sent {
    what: string;
    field?: { name: string; sent: unknown };
    replacing?: string;
  }

  const succeeded = (res: { status: number }) => res.status >= 200 && res.status < 300;

  /** A body that must be refused, its media type, and what it is sent as. */
  interface Refusable {
    text: string;
    type: string;
    sent: Sent;
  }

  /**
   * Sends a body that must be refused; one that was stored anyway is read back, and a created
   * object removed again (a replaced one is the check's, removed at its end).
   */
  async function expect400(api: Api, t: Target, r: Resource, auth: Auth, body: string, type: string, sent: Sent) {
    const { what, field, replacing } = sent;
    const headers = { ...auth, "content-type": type, accept: "application/json" };
    const res =
      replacing === undefined
        ? await send(api, "POST", urlOf(t, r.op.create!), { headers, body })
        : await send(api, "PUT", urlOf(t, r.op.update!, replacing), { headers, body });
    let stored = "";
    if (succeeded(res)) {
      const calls = lifecycle(api, t, r, auth);
      const id = replacing ?? idAnswered(calls, res);
      if (id) {
        if (field && r.op.read) {
          const read = await calls.get(id);
          if (read.status === 200) {
            const v = valueNamed(read.json(), field.name);
            stored = `; stored ${field.name} = ${quote(JSON.stringify(v) ?? "undefined", 80)}${change(field.sent, v)}`;
          }
        }
        if (replacing === undefined) await calls.delete(id);
      }
    }
    const how = replacing === undefined ? "" : `PUT ${replacing}, `;
    expect(res.status, `${how}${what}: answered ${res.status} ${quote(res.text, 200)}${stored}`).toBe(400);
  }

  /** The id of the object a create's answer shows, if it is JSON that shows one. */
  function idAnswered(calls: ReturnType<typeof lifecycle>, res: { json(): unknown }): string | undefined {
    try {
      return calls.idOf(res.json());
    } catch {
      return undefined;
    }
  }

  /**
   * Bodies of `r` with a property that is not a text given one its type can not read, written as
   * XML: sent as a create, or as a replacement of the object `replacing` names.
   */
  const unreadableInXml = (
    compiled: Parameters<typeof unreadableXmlBodies>[0],
    r: Resource,
    valid: Record<string, unknown>,
    replacing?: string,
  ) => {
    const schema = r.collection.request!.schema;
    return unreadableXmlBodies(compiled, schema, valid, serviceOwned(r.collection)).map(
      ({ field, text, body }): Refusable => ({
        text: compiled.xml.stringify(schema, body),
        type: "application/xml",
        sent: {
          what: `<${field}>${text}</${field}> in XML`,
          field: { name: field, sent: text },
          ...(replacing === undefined ? {} : { replacing }),
        },
      }),
    );
  };

  /**
   * An object of `r` made for the check, its id and a valid replacement of it (its own id as it
   * reads it: another would be refused for that alone); removed after `use`. Refusals of invalid
   * replacements mean something only where a valid one is taken: one that is not skips the check,
   * another's finding (SVC-METHODS checks replacing).
   */
  async function withObject(
    api: Api,
    t: Target,
    r: Resource,
    auth: Auth,
    use: (id: string, valid: Record<string, unknown>) => Promise<void>,
  ) {
    const c = r.collection;
    const calls = lifecycle(api, t, r, auth);
    const body = bodyOf(c, uniqueName(t.namePrefix));
    const { id } = await calls.create(body);
    try {
      const read = await calls.get(id);
      const shown = read.status === 200 ? calls.idOf(read.json()) : undefined;
      const valid = { ...body, [c.idProperty!]: shown === undefined ? id : read.json()[c.idProperty!] };
      const taken = await calls.put(id, valid);
      test.skip(
        !succeeded(taken),
        `${NOT_CHECKED}SVC-METHODS: a valid replacement was answered ${taken.status} (${quote(taken.text, 120)})`,
      );
      await use(id, valid);
    } finally {
      await calls.delete(id);
    }
  }

  /** What the service sets itself or the path names (the id): not the body's to get wrong. */
  const serviceOwned = (c: Resource["collection"]) =>
    [c.idProperty, ...c.serviceSet.map((s) => s.name)].filter((k): k is string => k !== undefined);

  // A resource the description does not show declares its required properties in the team's
  // contract; the customer's are an assumption (A-REQUIRED). Each kind needs a check of its own.
  const ownResources = resources("editable").filter((r) => r.collection.name !== "Customer");
  if (ownResources.length === 0) {
    test("no other editable resource to leave a required property out of", covers("SVC-REQUIRED"), () => {
      test.skip(true, `${NOT_APPLICABLE}the contract has no editable resource besides the customer`);
    });
  }

  /** Bodies with a text shorter than its minLength or a number outside its bounds, where the schema has such. */
  const outOfBounds = (
    compiled: CompiledContract,
    schema: string,
    valid: Record<string, unknown>,
    skip: readonly string[],
  ): Array<fc.Arbitrary<{ field: string; body: Record<string, unknown> }>> => [
    ...(shortenedTexts(compiled, schema, skip).length > 0 ? [tooShortBodies(compiled, schema, valid, skip)] : []),
    ...(boundedNumbers(compiled, schema, skip).length > 0 ? [outOfRangeBodies(compiled, schema, valid, skip)] : []),
  ];

  for (const r of resources("editable")) {
    const c = r.collection;
    const schema = c.request!.schema;
    const skip = serviceOwned(c);
    /** Each JSON body, with the field it spoils, must be refused with 400: as a create, or as a replacement of `replacing`. */
    const eachJsonRefused =
      (api: Api, t: Target, auth: Auth, replacing?: string) =>
      ({ field, body }: { field: string; body: Record<string, unknown> }) =>
        expect400(api, t, r, auth, JSON.stringify(body), "application/json", {
          what: `${field} = ${quote(JSON.stringify(body[field]) ?? "left out", 80)}`,
          field: { name: field, sent: body[field] },
          ...(replacing === undefined ? {} : { replacing }),
        });

    // Every required property, one at a time: a schema requires a few, never enough to sample.
    const required = requiredOf(c);
    test(
      `${r.name}: a body without a required property is 400`,
      about(r, coversWriting(c.name === "Customer" ? "A-REQUIRED" : "SVC-REQUIRED")),
      async ({ api, target, session }) => {
        test.skip(
          required.length === 0,
          `${NOT_APPLICABLE}${schema} requires no property a body must give (none but with a default, the id or the service's own)`,
        );
        const auth = await session.auth();
        for (const { field, body } of bodiesWithout(required, bodyOf(c, uniqueName(target.namePrefix)))) {
          await expect400(api, target, r, auth, JSON.stringify(body), "application/json", {
            what: `without ${field}`,
            field: { name: field, sent: undefined },
          });
        }
      },
    );

    // A replacement is held to a create's rules: an update path that skips them is a bug a
    // create's checks never see. An object is made for each check and removed after it.
    const replaceable = r.op.update !== undefined && r.op.read !== undefined && r.op.delete !== undefined;
    if (replaceable) {
      test(
        `${r.name}: a replacement (PUT) without a required property is 400`,
        about(r, coversWriting(c.name === "Customer" ? "A-REQUIRED" : "SVC-REQUIRED")),
        async ({ api, target, session }) => {
          test.skip(
            required.length === 0,
            `${NOT_APPLICABLE}${schema} requires no property a body must give (none but with a default, the id or the service's own)`,
          );
          const auth = await session.auth();
          await withObject(api, target, r, auth, async (id, valid) => {
            for (const { field, body } of bodiesWithout(required, valid)) {
              await expect400(api, target, r, auth, JSON.stringify(body), "application/json", {
                what: `without ${field}`,
                field: { name: field, sent: undefined },
                replacing: id,
              });
            }
          });
        },
      );

      test(
        `${r.name}: a replacement (PUT) of the wrong type, outside a length, a range or an enum, or with a malformed date is 400`,
        about(r),
        async ({ api, target, session, contract }) => {
          const auth = await session.auth();
          const compiled = contract.compiled;
          await withObject(api, target, r, auth, async (id, valid) => {
            const kinds = [
              wrongTypeBodies(compiled, schema, valid),
              ...(limitedTexts(compiled, schema, skip).length > 0
                ? [tooLongBodies(compiled, schema, valid, skip)]
                : []),
              ...(enumProperties(compiled, schema, skip).length > 0
                ? [outsideEnumBodies(compiled, schema, valid, skip)]
                : []),
              ...outOfBounds(compiled, schema, valid, skip),
              ...(dateProperties(compiled, schema).length > 0 ? [malformedDateBodies(compiled, schema, valid)] : []),
            ];
            await assertProperty(fc.oneof(...kinds), eachJsonRefused(api, target, auth, id));
          });
        },
      );

      test(
        `${r.name}: a replacement (PUT) in malformed JSON or XML, or in XML of the wrong type, is 400`,
        about(r),
        async ({ api, target, session, contract }) => {
          const auth = await session.auth();
          const compiled = contract.compiled;
          await withObject(api, target, r, auth, async (id, valid) => {
            const xml = compiled.xml.stringify(schema, valid);
            const ending =
              (kind: string) =>
              (text: string): Refusable => ({
                text,
                type: `application/${kind.toLowerCase()}`,
                sent: { what: `${kind} ending ${JSON.stringify(text.slice(-60))}`, replacing: id },
              });
            const kinds = [malformedJson(valid).map(ending("JSON")), malformedXml(xml).map(ending("XML"))];
            // XML of the wrong type, where a valid replacement in XML is taken (else that is
            // SVC-FORMATS-WRITE's finding, and only the documents are tried).
            const asXml = await send(api, "PUT", urlOf(target, r.op.update!, id), {
              headers: { ...auth, "content-type": "application/xml", accept: "application/json" },
              body: xml,
            });
            if (succeeded(asXml) && untextualProperties(compiled, schema, skip).length > 0) {
              kinds.push(unreadableInXml(compiled, r, valid, id));
            }
            await assertProperty(fc.oneof(...kinds), ({ text, type, sent }) =>
              expect400(api, target, r, auth, text, type, sent),
            );
          });
        },
      );
    }

    test(`${r.name}: a property of the wrong type is 400`, about(r), async ({ api, target, session, contract }) => {
      await assertProperty(
        wrongTypeBodies(contract.compiled, schema, bodyOf(c, uniqueName(target.namePrefix))),
        eachJsonRefused(api, target, await session.auth()),
      );
    });

    test(
      `${r.name}: a text longer than its maxLength is 400, not stored cut`,
      about(r),
      async ({ api, target, session, contract }) => {
        test.skip(
          limitedTexts(contract.compiled, schema, skip).length === 0,
          `${NOT_APPLICABLE}${schema} has no text with a maxLength`,
        );
        await assertProperty(
          tooLongBodies(contract.compiled, schema, bodyOf(c, uniqueName(target.namePrefix)), skip),
          eachJsonRefused(api, target, await session.auth()),
        );
      },
    );

    test(
      `${r.name}: a text shorter than its minLength or a number outside its minimum or maximum is 400`,
      about(r),
      async ({ api, target, session, contract }) => {
        const kinds = outOfBounds(contract.compiled, schema, bodyOf(c, uniqueName(target.namePrefix)), skip);
        test.skip(kinds.length === 0, `${NOT_APPLICABLE}${schema} has no text with a minLength and no bounded number`);
        await assertProperty(fc.oneof(...kinds), eachJsonRefused(api, target, await session.auth()));
      },
    );

    test(
      `${r.name}: a value its enum does not list is 400, not stored replaced`,
      about(r),
      async ({ api, target, session, contract }) => {
        test.skip(
          enumProperties(contract.compiled, schema, skip).length === 0,
          `${NOT_APPLICABLE}${schema} has no property with an enum`,
        );
        await assertProperty(
          outsideEnumBodies(contract.compiled, schema, bodyOf(c, uniqueName(target.namePrefix)), skip),
          eachJsonRefused(api, target, await session.auth()),
        );
      },
    );

    test(
      `${r.name}: a date that is not month/day/year is 400`,
      about(r),
      async ({ api, target, session, contract }) => {
        test.skip(
          dateProperties(contract.compiled, schema).length === 0,
          `${NOT_APPLICABLE}${schema} has no month/day/year date`,
        );
        await assertProperty(
          malformedDateBodies(contract.compiled, schema, bodyOf(c, uniqueName(target.namePrefix))),
          eachJsonRefused(api, target, await session.auth()),
        );
      },
    );

    test(
      `${r.name}: a property of the wrong type in XML is 400, not dropped`,
      about(r),
      async ({ api, target, session, contract }) => {
        test.skip(
          untextualProperties(contract.compiled, schema, skip).length === 0,
          `${NOT_APPLICABLE}${schema} has no property but texts: in XML every value is text`,
        );
        const auth = await session.auth();
        // A refusal means something only where a valid create in XML is taken: a target that
        // refuses every XML body is SVC-FORMATS-WRITE's finding, and this check not checked.
        const valid = bodyOf(c, uniqueName(target.namePrefix));
        const taken = await send(api, "POST", urlOf(target, r.op.create!), {
          headers: { ...auth, "content-type": "application/xml", accept: "application/json" },
          body: contract.compiled.xml.stringify(schema, valid),
        });
        if (succeeded(taken)) {
          const calls = lifecycle(api, target, r, auth);
          const id = idAnswered(calls, taken);
          if (id !== undefined && r.op.delete) await calls.delete(id);
        }
        test.skip(
          !succeeded(taken),
          `${NOT_CHECKED}SVC-FORMATS-WRITE: a valid create in XML was answered ${taken.status} (${quote(taken.text, 120)})`,
        );
        await assertProperty(unreadableInXml(contract.compiled, r, valid), ({ text, type, sent }) =>
          expect400(api, target, r, auth, text, type, sent),
        );
      },
    );

    test(`${r.name}: malformed JSON is 400`, about(r), async ({ api, target, session }) => {
      const auth = await session.auth();
      await assertProperty(malformedJson(bodyOf(c, uniqueName(target.namePrefix))), async (text) =>
        expect400(api, target, r, auth, text, "application/json", { what: `JSON ${JSON.stringify(text.slice(-60))}` }),
      );
    });

    test(`${r.name}: malformed XML is 400`, about(r), async ({ api, target, session, contract }) => {
      const auth = await session.auth();
      const xml = contract.compiled.xml.stringify(schema, bodyOf(c, uniqueName(target.namePrefix)));
      await assertProperty(malformedXml(xml), async (text) =>
        expect400(api, target, r, auth, text, "application/xml", {
          what: `XML ending ${JSON.stringify(text.slice(-60))}`,
        }),
      );
    });
  }
});
