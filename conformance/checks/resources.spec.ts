// The description's generic rules, checked once for every resource of the
// contract by its result kind (conformance/lib/resources.ts reads them from the
// contract of the run): editable objects go through their lifecycle, lists and
// info objects take GET only, every data resource answers 401 without a token
// (or database), 404 for an unknown id, 400 for a missing required property,
// carries its schema's fields, answers XML as it answers JSON, and under both
// spellings of the version segment. Each check names its resource as its
// subject, so the matrix shows `SVC-METHODS · Customer`, `SVC-METHODS · Supplier`.

import { isDeepStrictEqual } from "node:util";
import { asMonthDayYear } from "../../src/rules/dates.ts";
import { described, valueNamed } from "../../src/rules/names.ts";
import { readXml, xmlText } from "../../src/rules/xml.ts";
import { apiBase } from "../lib/config.ts";
import { notCreated, quote, send } from "../lib/http.ts";
import { absentId } from "../lib/operations.ts";
import { NOT_APPLICABLE, NOT_CHECKED, NOT_VERIFIED, SUBJECT_ANNOTATION } from "../lib/requirements.ts";
import {
  bodyOf,
  changeableProperty,
  constrained,
  creationRule,
  defaultOf,
  hasDefault,
  isEnum,
  lifecycle,
  listOf,
  nameProperty,
  otherArrays,
  type Resource,
  requiredOf,
  resources,
  textValue,
  uniqueName,
  urlOf,
} from "../lib/resources.ts";
import { describeProblems, problemsOf } from "../lib/shapes.ts";
import { checks, covers, coversWriting, expect, expectSucceeded, test } from "../lib/test.ts";

checks(() => {
  /** A check's details for one resource: its requirements and the resource as the matrix row's subject. */
  const about = (r: Resource, details: { tag: string[] }) => ({
    ...details,
    annotation: { type: SUBJECT_ANNOTATION, description: r.name },
  });

  /** Creates an object of an editable resource for a check and gives back its id and how to remove it. */
  async function anObject(
    api: Parameters<typeof lifecycle>[0],
    t: Parameters<typeof lifecycle>[1],
    r: Resource,
    auth: Record<string, string>,
    strict = false,
  ) {
    const calls = lifecycle(api, t, r, auth);
    const body = bodyOf(r.collection, uniqueName(t.namePrefix));
    const { id } = await calls.create(body, strict);
    return { id, body, calls, done: () => calls.delete(id).then(() => undefined) };
  }

  for (const r of resources("editable")) {
    const c = r.collection;

    test(
      `${r.name}: an object created by POST is read at its own address`,
      about(r, coversWriting("SVC-RESOURCE-ADDRESS")),
      async ({ api, target, session }) => {
        const auth = await session.auth();
        const calls = lifecycle(api, target, r, auth);
        const body = bodyOf(c, uniqueName(target.namePrefix));
        const posted = await calls.post(body);
        notCreated(posted, creationRule(r));
        const id = calls.idOf(posted.json());
        // An answer without the id is CUST-CREATE-ID's finding; without it there is no address to read.
        test.skip(
          id === undefined,
          `${NOT_CHECKED}CUST-CREATE-ID: the answer to ${posted.call} does not name the object's ${c.idProperty}`,
        );
        const read = await calls.get(id!);
        const name = nameProperty(c);
        // Whatever GET said, the object goes again: found by its unique name where a list shows it.
        await cleanUp(api, target, r, auth, id!, name ? body[name] : undefined);
        expectSucceeded(read, `${read.call}: the address POST named`);
        if (name) {
          expect(valueNamed(read.json(), name), `${read.call} reads the object POST created`).toBe(body[name]);
        }
      },
    );

    test(
      `${r.name}: POST, GET, PUT, GET, DELETE, GET 404`,
      about(r, coversWriting("SVC-METHODS")),
      async ({ api, target, session, findings }) => {
        await findings.require({ names: true });
        const auth = await session.auth();
        // Creating is this rule's own step for a resource the description does not show.
        const { id, body, calls } = await anObject(api, target, r, auth, c.name !== "Customer");
        const read = await calls.get(id);
        expectSucceeded(read, `${read.call} right after POST`);
        const field = changeableProperty(c);
        // Arrays too: a PUT replaces the object whole, its lists of addresses and the like included.
        const arrays = otherArrays(c, body);
        // The id as the object reads it (its type is the service's); one it does not show is
        // CUST-CREATE-ID's finding, and the id that found the object goes instead.
        const changed = await calls.put(id, {
          ...body,
          [c.idProperty!]: calls.idOf(read.json()) === undefined ? id : read.json()[c.idProperty!],
          ...(field ? { [field]: textValue(c, field, "Changed by PUT") } : {}),
          ...arrays,
        });
        expectSucceeded(changed, `${changed.call}: ${changed.text.slice(0, 300)}`);
        const shown = described(read.json(), c.properties, target);
        const reread = described((await calls.get(id)).json(), c.properties, target);
        if (field) {
          // A field answers leave out is a finding of the fields' check; its change can not be read.
          test.skip(
            !(field in shown),
            `${NOT_CHECKED}${c.name === "Customer" ? "CUST-FIELDS" : "SVC-FIELDS"}: ${read.call} has no ${field}`,
          );
          expect(reread[field], `PUT's ${field} is read back`).toBe(textValue(c, field, "Changed by PUT"));
        }
        for (const [k, sent] of Object.entries(arrays)) {
          if (!(k in shown)) continue;
          const now = reread[k];
          expect(Array.isArray(now) ? now.length : now, `PUT's ${k} (${sent.length} items) is read back`).toBe(
            sent.length,
          );
        }
        const removed = await calls.delete(id);
        expectSucceeded(removed, removed.call);
        const gone = await calls.get(id);
        if (gone.status === 200) {
          // An id that never existed answered too: ERR-2-ID's finding, not one of DELETE.
          const never = await calls.get(absentId(r));
          test.skip(
            never.status === 200,
            `${NOT_CHECKED}ERR-2-ID: ${never.call}, an id that does not exist, answered 200`,
          );
        }
        expect(gone.status, `${gone.call} after DELETE`).toBe(404);
      },
    );

    test(
      `${r.name}: a property missing from the body of POST or PUT is given its default`,
      about(r, coversWriting("CUST-DEFAULTS")),
      async ({ api, target, session, findings }) => {
        await findings.require({ names: true });
        const auth = await session.auth();
        const calls = lifecycle(api, target, r, auth);
        const omissible = omissibleProperties(c);
        test.skip(omissible.length === 0, `${NOT_APPLICABLE}${c.request!.schema} has no property a body may leave out`);
        const name = uniqueName(target.namePrefix);
        // POST without them: the object is stored with every one of them.
        const full = bodyOf(c, name);
        const posted = Object.fromEntries(Object.entries(full).filter(([k]) => !omissible.includes(k)));
        const { id } = await calls.create(posted);
        const created = described((await calls.get(id)).json(), c.properties, target);
        // PUT without them, after each was given a value no default is: none keeps that value.
        const texts = omissible.filter((k) => freeText(c, k));
        const set = Object.fromEntries(texts.map((k) => [k, textValue(c, k, "Set before PUT")]));
        const shownId = calls.idOf(created) === undefined ? id : created[c.idProperty!];
        const before = await calls.put(id, { ...full, [c.idProperty!]: shownId, ...set });
        const replaced = await calls.put(id, { ...posted, [c.idProperty!]: shownId });
        const after = described((await calls.get(id)).json(), c.properties, target);
        await calls.delete(id);
        expect(
          omissible.filter((k) => !(k in created)),
          `omitted properties missing from the stored ${r.name}`,
        ).toEqual([]);
        expectSucceeded(before, `${before.call}: ${before.text.slice(0, 200)}`);
        expectSucceeded(replaced, `${replaced.call}: ${replaced.text.slice(0, 200)}`);
        expect(
          omissible.filter((k) => !(k in after)),
          `properties a PUT left out, missing from the stored ${r.name}`,
        ).toEqual([]);
        expect(
          texts.filter((k) => after[k] === set[k]),
          `properties a PUT left out that kept the value the PUT before gave them, instead of their default`,
        ).toEqual([]);
      },
    );

    test(
      `${r.name}: a property missing from the body of POST gets the contract's default value`,
      about(r, coversWriting("A-DEFAULTS")),
      async ({ api, target, session, findings }) => {
        await findings.require({ names: true, dates: true });
        // Every default the contract declares, compared: CUST-DEFAULTS sees only that an omitted
        // property is stored and a PUT does not keep the value before, and passed a server that gave
        // a team's resource false and 0 where its contract says true and 21.
        const given = c.request!.properties.filter(
          (k) => k !== c.idProperty && !c.serviceSet.some((s) => s.name === k) && hasDefault(c, k),
        );
        test.skip(given.length === 0, `${NOT_APPLICABLE}${c.request!.schema} gives no property a default`);
        const calls = lifecycle(api, target, r, await session.auth());
        // The id as bodyOf makes it too ("" where the service gives it; a value where the client
        // must): a body without an id the schema requires would be refused for that instead.
        const sent = new Set([...requiredOf(c), nameProperty(c), c.idProperty]);
        const full = bodyOf(c, uniqueName(target.namePrefix));
        const { id } = await calls.create(Object.fromEntries(Object.entries(full).filter(([k]) => sent.has(k))));
        const read = await calls.get(id);
        await calls.delete(id);
        expectSucceeded(read, read.call);
        const stored = described(read.json(), c.properties, target);
        // One missing from the answer is CUST-DEFAULTS's finding (or the fields' check's).
        // A date default may be written without leading zeros; it reads back padded (A-DATES).
        const asRead = (k: string, v: unknown) =>
          c.dateProperties.includes(k) && typeof v === "string"
            ? v.replace(
                /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/,
                (_, m: string, d: string, y: string) => `${m.padStart(2, "0")}/${d.padStart(2, "0")}/${y}`,
              )
            : v;
        const wrong = given
          .filter((k) => !sent.has(k) && k in stored && !isDeepStrictEqual(stored[k], asRead(k, defaultOf(c, k))))
          .map((k) => `${k}: ${JSON.stringify(stored[k])}, the contract's default ${JSON.stringify(defaultOf(c, k))}`);
        expect(wrong, `omitted properties of the created ${r.name}, not their default: ${wrong.join("; ")}`).toEqual(
          [],
        );
      },
    );

    if (r.op.update && c.idProperty) {
      test(
        `${r.name}: a PUT body naming another id than its path is 400`,
        about(r, coversWriting("A-PUT-ID")),
        async ({ api, target, session }) => {
          // Per resource: a check of the customer's CustomerId alone passed a server that compared
          // that one property and let a team's resource be stored under another id.
          const { id, body, calls, done } = await anObject(api, target, r, await session.auth());
          const other = absentId(r);
          const res = await calls.put(id, { ...body, [c.idProperty!]: c.idIsNumber ? Number(other) : other });
          await done();
          // Taken: the object may now live under the other id too; it is not left behind.
          if (res.status < 300) await calls.delete(other);
          expect(res.status, `${res.call} with ${c.idProperty} ${other}: ${quote(res.text, 200)}`).toBe(400);
        },
      );
    }

    const info = listOf(c);
    if (info && r.op.update && r.op.read && r.op.delete) {
      const list = info.op.list!;
      const shared = list.view.properties.filter((k) => c.properties.includes(k));
      test(
        `${r.name}: ${info.name}'s items equal the ${r.name}'s fields of the same name, after POST and after PUT`,
        about(r, coversWriting("A-INFO-FIELDS")),
        async ({ api, target, session, findings }) => {
          await findings.require({ names: true, dates: true });
          const auth = await session.auth();
          const calls = lifecycle(api, target, r, auth);
          // Each free text a value of its own, so a field copied from another shows (an info list's
          // Telephone taken from MobilePhone passed while both were null).
          // What tells the two writes apart comes first: a value is cut to its maxLength. Not a
          // text whose schema has a pattern or format of its own, which such a value may not fit.
          const name = nameProperty(c);
          const own = (when: "P1" | "P2") =>
            Object.fromEntries(
              shared
                .filter((k) => k !== name && freeText(c, k) && !constrained(c, k))
                .map((k) => [k, textValue(c, k, `${when} ${k}`)]),
            );
          const full = bodyOf(c, uniqueName(target.namePrefix));
          const { id } = await calls.create({ ...full, ...own("P1") });
          const compare = async (when: string): Promise<string[]> => {
            const object = await calls.get(id);
            const items = await send(api, "GET", urlOf(target, list), { headers: auth });
            expectSucceeded(object, object.call);
            expectSucceeded(items, items.call);
            const of = described(object.json(), c.properties, target);
            const all = items.json() as unknown;
            if (!Array.isArray(all)) return [`${when}: ${items.call} is not a list: ${quote(items.text, 120)}`];
            const item = all
              .map((i) => described(i, list.view.properties, target))
              .find((i) => String(i[c.idProperty!]) === String(of[c.idProperty!] ?? id));
            if (!item) return [`${when}: ${items.call} has no item of ${c.idProperty} ${id}`];
            return shared
              .filter((k) => !isDeepStrictEqual(item[k], of[k]))
              .map((k) => `${when}: ${k} ${JSON.stringify(item[k])}, the ${r.name}'s ${JSON.stringify(of[k])}`);
          };
          try {
            const wrong = await compare("after POST");
            const shownId = (await calls.get(id)).json()?.[c.idProperty!] ?? id;
            // A new name too, where the resource has one: the list must follow it as well.
            const renamed = name ? { [name]: textValue(c, name, uniqueName(target.namePrefix)) } : {};
            const put = await calls.put(id, { ...full, [c.idProperty!]: shownId, ...own("P2"), ...renamed });
            expectSucceeded(put, `${put.call}: ${quote(put.text, 200)}`);
            wrong.push(...(await compare("after PUT")));
            expect(wrong, wrong.join("; ")).toEqual([]);
          } finally {
            await calls.delete(id);
          }
        },
      );
    }

    test(
      `${r.name}: POST and PUT without the body answer 400`,
      about(r, coversWriting("ERR-3-REQUIRED")),
      async ({ api, target, session }) => {
        const auth = { ...(await session.auth()), "content-type": "application/json" };
        const post = await send(api, "POST", urlOf(target, r.op.create!), { headers: auth });
        expect(post.status, post.call).toBe(400);
        const { id, done } = await anObject(api, target, r, await session.auth());
        const put = r.op.update ? await send(api, "PUT", urlOf(target, r.op.update, id), { headers: auth }) : undefined;
        await done();
        if (put) expect(put.status, put.call).toBe(400);
      },
    );

    test(
      `${r.name}: an id that does not exist answers 404 on GET, PUT and DELETE`,
      about(r, coversWriting("ERR-2-ID")),
      async ({ api, target, session }) => {
        const auth = await session.auth();
        const calls = lifecycle(api, target, r, auth);
        const id = absentId(r);
        expect((await calls.get(id)).status, "GET").toBe(404);
        if (r.op.update) {
          const put = await calls.put(id, { ...bodyOf(c, uniqueName(target.namePrefix)), [c.idProperty!]: id });
          if (put.status === 400) {
            // A body the target refuses wherever it goes is the finding of the rule that creates with it.
            const body = bodyOf(c, uniqueName(target.namePrefix));
            const posted = await calls.post(body);
            const made = posted.status === 200 ? calls.idOf(posted.json()) : undefined;
            const name = nameProperty(c);
            if (made !== undefined) await cleanUp(api, target, r, auth, made, name ? body[name] : undefined);
            notCreated(posted, creationRule(r));
          }
          expect(put.status, `${put.call}: ${put.text.slice(0, 200)}`).toBe(404);
        }
        if (r.op.delete) expect((await calls.delete(id)).status, "DELETE").toBe(404);
        // Rule 2 holds for any id no object has, not only one shaped like the service's ids: a server
        // that answered 400 to an id over eight characters passed with the one above. GET and DELETE
        // only: a PUT's body must name its path's id, which such an id breaks on its own.
        const wrong: string[] = [];
        for (const other of otherAbsentIds(r)) {
          for (const res of [await calls.get(other), ...(r.op.delete ? [await calls.delete(other)] : [])])
            if (res.status !== 404) wrong.push(`${res.call} answered ${res.status}`);
        }
        expect(wrong, `ids no object has, of other shapes: ${wrong.join("; ")}`).toEqual([]);
      },
    );
  }

  /**
   * Ids no object has beyond absentId's: one longer than the id property allows, one with a space
   * and a dot. None for a number id: whether "12 a" reaches the resource at all is the framework's.
   */
  function otherAbsentIds(r: Resource): string[] {
    if (r.collection.idIsNumber) return [];
    return [`${absentId(r)}${"z".repeat(Math.max(8, r.collection.idMaxLength ?? 8) + 8)}`, `no such.${absentId(r)}`];
  }

  /**
   * Properties of an editable resource's body that a body may leave out (with a default, required
   * or not: requiredOfWrite): a few of each type, never the id, the name, or what the service sets
   * itself.
   */
  function omissibleProperties(c: Resource["collection"]): string[] {
    const required = new Set(requiredOf(c));
    const name = nameProperty(c);
    const candidates = c.request!.properties.filter(
      (k) =>
        !required.has(k) &&
        k !== c.idProperty &&
        k !== name &&
        !c.serviceSet.some((s) => s.name === k) &&
        hasDefault(c, k),
    );
    const byType = new Map<string, string[]>();
    for (const k of candidates) {
      const type = (c.types[k] ?? []).find((t) => t !== "null") ?? "null";
      byType.set(type, [...(byType.get(type) ?? []), k]);
    }
    return [...byType.values()].flatMap((ks) => ks.slice(-2));
  }

  /**
   * A property of free text: any text a person types is valid there (not a date, not an enum, not a
   * code, whose allowed values the description does not show), so a check may write one.
   */
  function freeText(c: Resource["collection"], k: string): boolean {
    return (
      (c.types[k] ?? []).includes("string") &&
      !c.dateProperties.includes(k) &&
      !k.endsWith("Id") &&
      !isEnum(c, k) &&
      String(textValue(c, k, "Set before PUT")).length >= 3
    );
  }

  /** Deletes what a check created, by its id, or by the unique name in a list when the id did not work. */
  async function cleanUp(
    api: Parameters<typeof lifecycle>[0],
    t: Parameters<typeof lifecycle>[1],
    r: Resource,
    auth: Record<string, string>,
    id: string,
    name: unknown,
  ): Promise<void> {
    const calls = lifecycle(api, t, r, auth);
    if ((await calls.delete(id)).status === 200 || name === undefined) return;
    const list = listOf(r.collection);
    if (!list) return;
    const res = await send(api, "GET", urlOf(t, list.op.list!), { headers: { ...auth, accept: "application/json" } });
    const items = res.status === 200 ? (res.json() as unknown[]) : [];
    const found = Array.isArray(items)
      ? calls.idOf(items.find((i) => Object.values(i as object).includes(name)))
      : undefined;
    if (found) await calls.delete(found);
  }

  for (const r of resources("list", "name-value-list", "info")) {
    test(
      `${r.name}: only GET; POST, PUT and DELETE do not succeed`,
      about(r, coversWriting("SVC-READ-ONLY-LIST")),
      async ({ api, target, session }) => {
        const auth = { ...(await session.auth()), "content-type": "application/json" };
        const op = r.op.list ?? r.op.read!;
        const url = urlOf(target, op, absentId(r));
        for (const method of ["POST", "PUT", "DELETE"]) {
          const res = await send(api, method, url, { headers: auth, body: r.op.list ? "[]" : "{}" });
          expect(res.status >= 200 && res.status < 300, `${res.call} answered ${res.status}`).toBe(false);
        }
      },
    );
  }

  for (const r of resources("list", "name-value-list")) {
    test(
      `${r.name}: GET answers a list of its items`,
      about(r, covers("INFO-LIST")),
      async ({ api, target, session, contract, findings }) => {
        // Items of a schema of their own are read by their names: names in another case are CUST-NAMES' finding.
        await findings.require({ names: true });
        const auth = await session.auth();
        const res = await send(api, "GET", urlOf(target, r.op.list!), { headers: auth });
        expectSucceeded(res, res.call);
        const problems = problemsOf(contract.spec, r.op.list!.answers, res.json(), target, r.op.list!.view.properties);
        expect(problems, describeProblems(problems)).toEqual([]);
        // Each item is an object of the database the path addresses, read at its address there: a
        // list that also showed another database's objects passed a check of its shape alone. Up
        // to 100 items of a long list (its first and last 50), one GET each.
        const objects = resources("editable").find((e) => e.collection === r.collection && e.op.read);
        const items = res.json() as unknown;
        if (!objects || !Array.isArray(items)) return;
        const calls = lifecycle(api, target, objects, auth);
        const ids = items.map((item) => calls.idOf(item)).filter((id): id is string => id !== undefined);
        const tried = ids.length <= 100 ? ids : [...ids.slice(0, 50), ...ids.slice(-50)];
        let gone: string[] = [];
        for (const id of tried) if ((await calls.get(id)).status === 404) gone.push(id);
        if (gone.length > 0) {
          // An object another worker of the run deleted since is gone from the list too: only ids
          // the list still shows, and still not found, are this rule's finding.
          const again = await send(api, "GET", urlOf(target, r.op.list!), { headers: auth });
          const still = new Set(
            (Array.isArray(again.json()) ? (again.json() as unknown[]) : []).map((item) => calls.idOf(item)),
          );
          const confirmed: string[] = [];
          for (const id of gone) if (still.has(id) && (await calls.get(id)).status === 404) confirmed.push(id);
          gone = confirmed;
        }
        const missing = gone.map(
          (id) => `${objects.name} ${id} answered 404 at ${urlOf(target, objects.op.read!, id)}`,
        );
        expect(missing, `items of ${res.call} that are no object of its database: ${missing.join("; ")}`).toEqual([]);
      },
    );
  }

  /** Every data resource's first GET: a list's, else an object's (created for the check in a run that may write). */
  async function aRead(
    api: Parameters<typeof lifecycle>[0],
    t: Parameters<typeof lifecycle>[1],
    r: Resource,
    auth: Record<string, string>,
    letter: "v" | "V" = "v",
  ): Promise<{ url: string; done: () => Promise<void> }> {
    if (r.op.list) return { url: urlOf(t, r.op.list, undefined, letter), done: async () => undefined };
    if (r.kind === "editable" && !t.readOnly) {
      const made = await anObject(api, t, r, auth);
      return { url: urlOf(t, r.op.read!, made.id, letter), done: made.done };
    }
    // An object of a read-only run, or an info object: the first id a list of its collection shows.
    const list = listOf(r.collection);
    const res = list
      ? await send(api, "GET", urlOf(t, list.op.list!), { headers: { ...auth, accept: "application/json" } })
      : undefined;
    const first = res?.status === 200 ? (res.json() as unknown[])[0] : undefined;
    const id = lifecycle(api, t, r, auth).idOf(first);
    test.skip(
      id === undefined,
      `${NOT_VERIFIED}no ${r.collection.name} to read (${list ? `${list.name} shows none` : "no list shows them"})`,
    );
    return { url: urlOf(t, r.op.read!, id, letter), done: async () => undefined };
  }

  for (const r of resources()) {
    test(`${r.name}: without a token the answer is 401`, about(r, covers("ERR-4-TOKEN")), async ({ api, target }) => {
      const accept = { accept: "application/json" };
      const op = r.op.list ?? r.op.read!;
      const read = await send(api, "GET", urlOf(target, op, absentId(r)), { headers: accept });
      expect(read.status, read.call).toBe(401);
      // A target that wrongly answered these would store or remove data: a read-only run checks only the reads.
      if (target.readOnly || r.kind !== "editable") return;
      const post = await send(api, "POST", urlOf(target, r.op.create!), {
        headers: { ...accept, "content-type": "application/json" },
        body: JSON.stringify(bodyOf(r.collection, uniqueName(target.namePrefix))),
      });
      expect(post.status, post.call).toBe(401);
      if (r.op.delete) {
        const del = await send(api, "DELETE", urlOf(target, r.op.delete, absentId(r)), { headers: accept });
        expect(del.status, del.call).toBe(401);
      }
    });

    const op = r.op.list ?? r.op.read!;
    if (op.databaseParam) {
      test(
        `${r.name}: without a database the answer is 401`,
        about(r, covers("ERR-4-DATABASE")),
        async ({ api, target, session }) => {
          const auth = await session.auth();
          const rest = op.path.split(`{${op.databaseParam}}/`)[1]!.replace(`{${op.idParam}}`, absentId(r));
          const wrong: string[] = [];
          for (const [form, path] of [
            ["an empty database segment", `/api//${rest}`],
            ["no database segment at all", `/api/${rest}`],
          ]) {
            const res = await send(api, "GET", `${apiBase(target)}${path}`, { headers: auth });
            if (res.status !== 401) wrong.push(`${res.call} (${form}) answered ${res.status}`);
          }
          expect(wrong, "calls without a database that were not 401").toEqual([]);
        },
      );
    }

    test(
      `${r.name}: the version segment works with v and V`,
      about(r, covers("VER-CASE")),
      async ({ api, target, session }) => {
        const auth = await session.auth();
        for (const letter of ["v", "V"] as const) {
          const { url, done } = await aRead(api, target, r, auth, letter);
          const res = await send(api, "GET", url, { headers: auth });
          await done();
          expectSucceeded(res, res.call);
        }
      },
    );

    test(
      `${r.name}: Accept application/xml answers XML with the JSON form's names and values`,
      about(r, covers("SVC-FORMATS")),
      async ({ api, target, session, findings }) => {
        await findings.require({ names: true, ...(r.collection.dateProperties.length ? { dates: true } : {}) });
        const auth = await session.auth();
        const { url, done } = await aRead(api, target, r, auth);
        const json = await send(api, "GET", url, { headers: { ...auth, accept: "application/json" } });
        const xmls = [
          await send(api, "GET", url, { headers: { ...auth, accept: "application/xml" } }),
          await send(api, "GET", url, { headers: { ...auth, accept: "text/xml" } }),
        ];
        await done();
        expect(json.headers["content-type"] ?? "", `${json.call} with Accept application/json`).toMatch(
          /^application\/json/,
        );
        const fields = (r.op.list ?? r.op.read!).view.properties;
        // A list's XML holds one element per item; the comparison reads the first.
        const asJson = r.op.list ? (json.json() as unknown[])[0] : json.json();
        const a = datesRead(r, described(asJson, fields, target));
        const differences: string[] = [];
        for (const xml of xmls) {
          expectSucceeded(xml, xml.call);
          expect(xml.headers["content-type"] ?? "", `${xml.call}: an XML media type`).toMatch(
            /^(application|text)\/xml/,
          );
          const parsed = readXml(xml.text);
          const b = datesRead(r, described(r.op.list ? firstItem(parsed.fields) : parsed.fields, fields, target));
          for (const [name, value] of Object.entries(a)) {
            if (!(name in b)) differences.push(`${name} is missing`);
            else if (typeof value === "object" && value !== null) continue;
            // An empty element is how XML writes an empty string; the loose reader reads it as null.
            else if (b[name] !== xmlText(value) && !(b[name] === null && value === ""))
              differences.push(`${name} is ${JSON.stringify(b[name])} in XML, ${JSON.stringify(value)} in JSON`);
          }
        }
        expect(differences, "XML and JSON forms differ").toEqual([]);
      },
    );
  }

  /**
   * An object's dates as month/day/year, whatever form they are written in: the XML form is held
   * to the JSON form's date, not to its writing, which the description does not show for XML (how
   * JSON writes it is CUST-DATES's rule; our assumption for XML is A-XML-MAPPING's).
   */
  function datesRead(r: Resource, o: Record<string, unknown>): Record<string, unknown> {
    for (const d of r.collection.dateProperties) if (d in o) o[d] = asMonthDayYear(o[d]);
    return o;
  }

  /** The first item element of a list's XML, as fields. */
  function firstItem(fields: Record<string, unknown>): Record<string, unknown> {
    const items = Object.values(fields)[0];
    const first = Array.isArray(items) ? items[0] : items;
    if (typeof first !== "object" || first === null) return {};
    return Object.fromEntries(
      Object.entries(first as Record<string, unknown>)
        .filter(([k]) => !k.startsWith("@_"))
        .map(([k, v]) => [
          k,
          typeof v === "object" && v !== null && (v as Record<string, unknown>)["@_nil"] === "true"
            ? null
            : v === ""
              ? null
              : v,
        ]),
    );
  }

  // The customer's fields are the description's own table, checked by CUST-FIELDS; every other
  // object is checked against its schema in the contract.
  const ownFields = resources("editable", "info").filter((x) => x.collection.name !== "Customer");
  if (ownFields.length === 0) {
    test("no other object to check the fields of", covers("SVC-FIELDS"), () => {
      test.skip(true, `${NOT_APPLICABLE}the contract has no editable resource or info object besides the customer`);
    });
  }
  for (const r of ownFields) {
    test(
      `${r.name}: an object carries the fields of its schema, with their types`,
      about(r, covers("SVC-FIELDS")),
      async ({ api, target, session, contract, findings }) => {
        await findings.require({ names: true });
        const auth = await session.auth();
        const { url, done } = await aRead(api, target, r, auth);
        const res = await send(api, "GET", url, { headers: { ...auth, accept: "application/json" } });
        await done();
        expectSucceeded(res, res.call);
        const value = r.op.list ? (res.json() as unknown[])[0] : res.json();
        const op = r.op.read ?? r.op.list!;
        const problems = problemsOf(contract.spec, op.view.schema, value, target, op.view.properties);
        expect(problems, describeProblems(problems)).toEqual([]);
      },
    );
  }
});
