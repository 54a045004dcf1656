// Every data operation of the run's contract, as one request each, to try a token
// state (none, malformed, unknown, expired, renewed) on all of them: read from the
// resource model (lib/resources.ts), never a hand list. Reads and lists go to an id
// no object has, writes to such an id too (PUT, DELETE) or with a full body (POST),
// so a refused token changes nothing and an accepted one changes little, which the
// probe undoes.
import type { Operation } from "../../src/contract/index.ts";
import type { Target } from "./config.ts";
import { type Api, type Reply, send } from "./http.ts";
import { bodyOf, lifecycle, type Resource, resources, uniqueName, urlOf } from "./resources.ts";

/**
 * An id no object of the resource has, that its id property's schema accepts (a number for a
 * number id, no longer than its maxLength): a refusal for the shape of the id is not the answer
 * to an id that does not exist.
 */
export const absentId = (r: Resource): string => {
  const c = r.collection;
  const room = Math.max(2, Math.min(c.idMaxLength ?? 8, 8));
  if (c.idIsNumber) return String(10 ** (room - 1) - 1 + Math.floor(Math.random() * 9 * 10 ** (room - 2)));
  return `ZZ${Date.now().toString(36)}`.slice(0, room);
};

/** One data operation of one resource, ready to send with any Authorization. */
export interface OperationProbe {
  resource: Resource;
  action: Operation["action"];
  method: Operation["method"];
  url: string;
  body?: string;
}

/**
 * The data operations of every resource of the contract: reads and lists always, writes unless
 * the run is read-only (a target that wrongly accepted a token would store or remove data).
 */
export function dataOperations(t: Target): OperationProbe[] {
  const out: OperationProbe[] = [];
  for (const r of resources()) {
    for (const op of Object.values(r.op)) {
      if (!op || (t.readOnly && op.method !== "GET")) continue;
      // An operation the description does not show rests on an assumption: tried only with that kind.
      if (op.assumption && !t.kinds.has("assumption")) continue;
      const id = op.idParam ? absentId(r) : undefined;
      let body: string | undefined;
      if (op.method === "POST" || op.method === "PUT") {
        const value = bodyOf(r.collection, uniqueName(t.namePrefix));
        // A PUT's body names the id of its path: a body naming another is a wrong request (A-PUT-ID), not a probe.
        const idProperty = r.collection.idProperty;
        if (op.method === "PUT" && id !== undefined && idProperty)
          value[idProperty] = r.collection.idIsNumber ? Number(id) : id;
        body = JSON.stringify(value);
      }
      out.push({ resource: r, action: op.action, method: op.method, url: urlOf(t, op, id), ...(body ? { body } : {}) });
    }
  }
  return out;
}

/** A probe's request line, as findings name it. */
export const callOf = (p: OperationProbe) => `${p.method} ${new URL(p.url).pathname}`;

/**
 * Sends every probe with `authorization` (none when undefined), a few at a time: the answers in
 * the probes' order. An object a POST created anyway is deleted at once with `cleanup`'s headers.
 */
export async function tryEvery(
  api: Api,
  t: Target,
  probes: readonly OperationProbe[],
  authorization: string | undefined,
  cleanup?: Record<string, string>,
): Promise<Reply[]> {
  const one = async (p: OperationProbe): Promise<Reply> => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (authorization !== undefined) headers.authorization = authorization;
    if (p.body !== undefined) headers["content-type"] = "application/json";
    const res = await send(api, p.method, p.url, p.body === undefined ? { headers } : { headers, body: p.body });
    if (p.action === "create" && cleanup) await lifecycle(api, t, p.resource, cleanup).removeIfMade(res);
    return res;
  };
  const out: Reply[] = [];
  // Six at a time: concurrent enough to keep the run short, few enough for a real service.
  for (let i = 0; i < probes.length; i += 6) out.push(...(await Promise.all(probes.slice(i, i + 6).map(one))));
  return out;
}

/** The probes whose answer is not `expected` (a status, or a test of one), as lines of a finding. */
export function unexpected(
  probes: readonly OperationProbe[],
  answers: readonly Reply[],
  expected: number | ((status: number) => boolean),
): string[] {
  const ok = typeof expected === "number" ? (s: number) => s === expected : expected;
  return probes.flatMap((p, i) => (ok(answers[i]!.status) ? [] : [`${callOf(p)} answered ${answers[i]!.status}`]));
}
