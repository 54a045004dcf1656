// Bodies that do not fit the contract, generated from each editable resource's
// request schema: each must be refused with 400, never accepted (2xx) and never
// crash the target (5xx). One row per editable resource of the contract.
import { send } from "../lib/http.ts";
import {
  assertProperty,
  dateProperties,
  malformedDateBodies,
  malformedJson,
  malformedXml,
  wrongTypeBodies,
} from "../lib/invalid-bodies.ts";
import { NOT_APPLICABLE, SUBJECT_ANNOTATION } from "../lib/requirements.ts";
import { bodyOf, lifecycle, type Resource, resources, uniqueName, urlOf } from "../lib/resources.ts";
import { checks, coversWriting, expect, test } from "../lib/test.ts";

checks(() => {
  type Api = Parameters<typeof send>[0];
  type Target = Parameters<typeof urlOf>[0];
  type Auth = Record<string, string>;

  const about = (r: Resource) => ({
    ...coversWriting("A-INVALID-BODIES"),
    annotation: { type: SUBJECT_ANNOTATION, description: r.name },
  });

  /** Sends a body that must be refused; one that was stored anyway is removed again. */
  async function expect400(api: Api, t: Target, r: Resource, auth: Auth, body: string, type: string, what: string) {
    const res = await send(api, "POST", urlOf(t, r.op.create!), { headers: { ...auth, "content-type": type }, body });
    if (res.status >= 200 && res.status < 300) {
      const calls = lifecycle(api, t, r, auth);
      const id = (() => {
        try {
          return calls.idOf(res.json());
        } catch {
          return undefined;
        }
      })();
      if (id) await calls.delete(id);
    }
    expect(res.status, `${what}: answered ${res.status} ${res.text.slice(0, 200)}`).toBe(400);
  }

  for (const r of resources("editable")) {
    const c = r.collection;
    const schema = c.request!.schema;
    /** Each JSON body, with the field it spoils, must be refused with 400. */
    const eachJsonRefused =
      (api: Api, t: Target, auth: Auth) =>
      ({ field, body }: { field: string; body: Record<string, unknown> }) =>
        expect400(
          api,
          t,
          r,
          auth,
          JSON.stringify(body),
          "application/json",
          `${field} = ${JSON.stringify(body[field])}`,
        );

    test(`${r.name}: a property of the wrong type is 400`, about(r), async ({ api, target, session, contract }) => {
      await assertProperty(
        wrongTypeBodies(contract.compiled, schema, bodyOf(c, uniqueName(target.namePrefix))),
        eachJsonRefused(api, target, await session.auth()),
      );
    });

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

    test(`${r.name}: malformed JSON is 400`, about(r), async ({ api, target, session }) => {
      const auth = await session.auth();
      await assertProperty(malformedJson(bodyOf(c, uniqueName(target.namePrefix))), async (text) =>
        expect400(api, target, r, auth, text, "application/json", `JSON ${JSON.stringify(text.slice(-60))}`),
      );
    });

    test(`${r.name}: malformed XML is 400`, about(r), async ({ api, target, session, contract }) => {
      const auth = await session.auth();
      const xml = contract.compiled.xml.stringify(schema, bodyOf(c, uniqueName(target.namePrefix)));
      await assertProperty(malformedXml(xml), async (text) =>
        expect400(api, target, r, auth, text, "application/xml", `XML ending ${JSON.stringify(text.slice(-60))}`),
      );
    });
  }
});
