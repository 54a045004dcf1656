// The resources of the contract as the suite checks them: one resource model
// (src/contract/resources.ts) read from the contract of the run
// (CONFORMANCE_CONTRACT, else the project's), addresses of each resource on a
// target, bodies generated from each editable resource's request schema, and
// the calls of its lifecycle. The generic checks run once per resource of the
// right kind; nothing here names a resource.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "@playwright/test";
import {
  CONTRACT_PATH,
  type Collection,
  type CompiledContract,
  compileContract,
  type Operation,
  type ResourceKind,
} from "../../src/contract/index.ts";
import { PROJECT_ROOT } from "../../src/paths.ts";
import { completeBody, propertiesOf, requiredOfWrite, typesOf, valueFor } from "../../src/rules/bodies.ts";
import { type Target, urlOf } from "./config.ts";
import { nameOf } from "./created.ts";
import { type Api, notAddressable, notCreated, quote, type Reply, send } from "./http.ts";
import { NOT_CHECKED } from "./requirements.ts";

/** The contract the suite checks against: CONFORMANCE_CONTRACT names a team's own; compiled once per process. */
export const CONTRACT_FILE = process.env.CONFORMANCE_CONTRACT || CONTRACT_PATH;
let compiled: CompiledContract | undefined;
export function suiteContract(): CompiledContract {
  compiled ??= compileContract(CONTRACT_FILE, { eager: false });
  return compiled;
}

/** One resource of the contract, as its address names it, with the operations of its kind. */
export interface Resource {
  name: string;
  kind: ResourceKind;
  /** The assumption its path rests on (`x-assumption`): checked only with the assumption kind. */
  assumption: string | undefined;
  collection: Collection;
  /** By action: create, read, update, delete, list. */
  op: Partial<Record<Operation["action"], Operation>>;
}

/** The resources of the run's contract, in contract order; `kinds` picks some. */
export function resources(...kinds: ResourceKind[]): Resource[] {
  const out: Resource[] = [];
  for (const [name, r] of suiteContract().resources.resources) {
    if (kinds.length > 0 && !kinds.includes(r.kind)) continue;
    out.push({
      name,
      kind: r.kind,
      assumption: r.operations.find((o) => o.assumption)?.assumption,
      collection: r.collection,
      op: Object.fromEntries(r.operations.map((o) => [o.action, o])),
    });
  }
  return out;
}

/** The list resource that shows a collection's objects and their ids (to find an object by a value), if any. */
export function listOf(c: Collection): Resource | undefined {
  return resources("list").find(
    (r) => r.collection === c && c.idProperty !== undefined && r.op.list!.view.properties.includes(c.idProperty),
  );
}

export { uniqueName } from "./created.ts";
export { urlOf };

/** The first object of the project's seed for a collection (mock-data/), as an example of valid values. */
function seedExample(c: Collection): Record<string, unknown> | undefined {
  const root = join(PROJECT_ROOT, "mock-data");
  try {
    const names = [c.name, ...c.resources].map((n) => n.toLowerCase());
    const entry = readdirSync(root).find((e) => names.some((n) => [n, `${n}s`, `${n}.json`].includes(e.toLowerCase())));
    if (!entry) return undefined;
    const file = entry.endsWith(".json") ? join(root, entry) : join(root, entry, readdirSync(join(root, entry))[0]!);
    return (JSON.parse(readFileSync(file, "utf8")) as Array<Record<string, unknown>>)[0];
  } catch {
    return undefined;
  }
}

/**
 * For each array property of an editable resource's request, a value other than `body`'s: the
 * seed's example array where the body's is empty, else an empty one. What a PUT sends to find out
 * whether it replaces arrays too (a server that kept the stored array passed a change of one text).
 */
export function otherArrays(c: Collection, body: Record<string, unknown>): Record<string, unknown[]> {
  const example = seedExample(c) ?? {};
  const out: Record<string, unknown[]> = {};
  for (const [k, p] of Object.entries(propertiesOf(suiteContract(), c.request?.schema ?? c.schema))) {
    if (!typesOf(p).includes("array")) continue;
    const sent = body[k];
    const seeded = example[k];
    if (Array.isArray(sent) && sent.length > 0) out[k] = [];
    else if (Array.isArray(seeded) && seeded.length > 0) out[k] = seeded;
  }
  return out;
}

/**
 * A body of an editable resource with every property of its request schema (the description: a
 * body holds all properties), made from that resource's own schema (src/rules/bodies.ts): the
 * contract's default where it has one; for a required property without one, the seed's example
 * value, else a value its schema accepts. The first required text property carries `name` (the
 * run's unique name, cut to its maxLength), so cleanup and a list can find the object.
 */
export function bodyOf(c: Collection, name: string): Record<string, unknown> {
  return completeBody(suiteContract(), c, { name, nameProperty: nameProperty(c), example: seedExample(c) });
}

/** The property that carries a created object's unique name (created.ts, which cleanup reads too). */
export const nameProperty = (c: Collection): string | undefined => nameOf(c, suiteContract().doc);

/** What a write must give of an editable resource (src/rules/bodies.ts: required, without a default, not the id). */
export const requiredOf = (c: Collection): readonly string[] => requiredOfWrite(suiteContract(), c);

/** The default the contract gives a property of an editable resource's request, if any. */
export const defaultOf = (c: Collection, property: string): unknown =>
  propertiesOf(suiteContract(), c.request?.schema ?? c.schema)[property]?.default;

/** Whether the contract gives a property of an editable resource's request a default. */
export const hasDefault = (c: Collection, property: string) => defaultOf(c, property) !== undefined;

/** Whether a text property of an editable resource's request has a pattern or a format of its own. */
export const constrained = (c: Collection, property: string) => {
  const p = propertiesOf(suiteContract(), c.request?.schema ?? c.schema)[property];
  return p?.pattern !== undefined || p?.format !== undefined;
};

/** Whether a property of an editable resource's request allows only the values it lists. */
export const isEnum = (c: Collection, property: string) =>
  propertiesOf(suiteContract(), c.request?.schema ?? c.schema)[property]?.enum !== undefined;

/** A value of `property` that its schema accepts, made from `text` (cut to its maxLength). */
export function textValue(c: Collection, property: string, text: string): unknown {
  return valueFor(propertiesOf(suiteContract(), c.request?.schema ?? c.schema)[property] ?? {}, text);
}

/** A text property a PUT can change and a GET read back: nullable text, no date, no id, not the name. */
export function changeableProperty(c: Collection): string | undefined {
  const name = nameProperty(c);
  return c.request?.properties.find(
    (k) =>
      k !== c.idProperty &&
      k !== name &&
      k !== c.databaseProperty &&
      !c.dateProperties.includes(k) &&
      !c.sequences.includes(k) &&
      c.types[k]?.includes("string") &&
      c.types[k]?.includes("null"),
  );
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };

/** The calls of an editable resource's lifecycle on a target, with the token's headers. */
/**
 * The requirement whose finding a refused create is: the customer's body with every property is
 * CUST-BODY-ALL's; another resource's create is its SVC-METHODS row's.
 */
export const creationRule = (r: Resource): string =>
  r.collection.name === "Customer" ? "CUST-BODY-ALL" : `SVC-METHODS · ${r.name}`;

export function lifecycle(api: Api, t: Target, r: Resource, auth: Record<string, string>) {
  const c = r.collection;
  const idOf = (value: unknown): string | undefined => {
    if (typeof value !== "object" || value === null || !c.idProperty) return undefined;
    const entry = Object.entries(value).find(([k]) => k.toLowerCase() === c.idProperty!.toLowerCase());
    const id = entry?.[1];
    return id === undefined || id === null || id === "" || id === 0 ? undefined : String(id);
  };
  return {
    post: (body: Record<string, unknown>): Promise<Reply> =>
      send(api, "POST", urlOf(t, r.op.create!), { headers: { ...auth, ...JSON_HEADERS }, body: JSON.stringify(body) }),
    get: (id: string, accept = "application/json"): Promise<Reply> =>
      send(api, "GET", urlOf(t, r.op.read!, id), { headers: { ...auth, accept } }),
    put: (id: string, body: Record<string, unknown>): Promise<Reply> =>
      send(api, "PUT", urlOf(t, r.op.update!, id), {
        headers: { ...auth, ...JSON_HEADERS },
        body: JSON.stringify(body),
      }),
    delete: (id: string): Promise<Reply> => send(api, "DELETE", urlOf(t, r.op.delete!, id), { headers: auth }),
    idOf,
    /**
     * Deletes the object a write that should have been refused made anyway, its id read from the
     * answer (not JSON: the run's cleanup finds it by its unique name); never the id `kept`.
     */
    removeIfMade: async (reply: Reply, kept?: string): Promise<void> => {
      if (reply.status >= 300 || !r.op.delete) return;
      let id: string | undefined;
      try {
        id = idOf(reply.json());
      } catch {
        return;
      }
      if (id !== undefined && id !== kept) await send(api, "DELETE", urlOf(t, r.op.delete, id), { headers: auth });
    },
    /**
     * Creates an object and learns its id: from POST's answer when it has one (the description
     * does not show it), else from a list that shows the collection, by the unique name sent.
     * An object that could not be made is the finding of another check: this one is then not
     * checked because of it, unless `strict` (the check of creating itself).
     */
    create: async (body: Record<string, unknown>, strict = false): Promise<{ id: string; reply: Reply }> => {
      const reply = await send(api, "POST", urlOf(t, r.op.create!), {
        headers: { ...auth, ...JSON_HEADERS },
        body: JSON.stringify(body),
      });
      if (strict && reply.status !== 200)
        throw new Error(`${reply.call} answered ${reply.status}, not 200: ${quote(reply.text, 300)}`);
      notCreated(reply, creationRule(r));
      let id: string | undefined;
      try {
        id = idOf(reply.json());
      } catch {
        // Not JSON: look the object up instead.
      }
      if (id !== undefined && r.op.read) {
        const answered = id;
        await notAddressable(api, r.name, () =>
          send(api, "GET", urlOf(t, r.op.read!, answered), { headers: { ...auth, accept: "application/json" } }),
        );
      }
      const list = listOf(c);
      const name = nameProperty(c);
      if (id === undefined && list && name) {
        const res = await send(api, "GET", urlOf(t, list.op.list!), {
          headers: { ...auth, accept: "application/json" },
        });
        const items = res.status === 200 ? (res.json() as unknown[]) : [];
        id = idOf(
          Array.isArray(items) ? items.find((i) => Object.values(i as object).includes(body[name])) : undefined,
        );
      }
      const why = `cannot learn the id of the ${r.name} created by ${reply.call}: its answer has no ${c.idProperty}${list ? ` and ${list.name} does not show it` : ""}`;
      if (id === undefined && strict) throw new Error(why);
      test.skip(id === undefined, `${NOT_CHECKED}CUST-CREATE-ID: ${why}`);
      return { id: id!, reply };
    },
  };
}
