// Formats both ways (What the service does, 3): every editable resource of the contract is
// written once with a JSON body and once with an XML body carrying the same values, created and
// then replaced; what is stored must be the same, read back in JSON and in XML. The XML writes
// send application/xml and text/xml, one each, and ask for XML back.
import { type PropertySchema, propertiesOf, typesOf, valueFor } from "../../src/rules/bodies.ts";
import { readXml } from "../../src/rules/xml.ts";
import type { Target } from "../lib/config.ts";
import { type Api, quote, send } from "../lib/http.ts";
import { SUBJECT_ANNOTATION } from "../lib/requirements.ts";
import {
  bodyOf,
  lifecycle,
  nameProperty,
  type Resource,
  resources,
  suiteContract,
  uniqueName,
  urlOf,
} from "../lib/resources.ts";
import { checks, coversWriting, expect, test } from "../lib/test.ts";

checks(() => {
  const about = (r: Resource) => ({
    ...coversWriting("SVC-FORMATS-WRITE"),
    annotation: { type: SUBJECT_ANNOTATION, description: r.name },
  });

  /** Values both formats carry alike: the text of a number or boolean, nothing for null or "". */
  const norm = (v: unknown) => (v === null || v === undefined || v === "" ? "" : String(v));
  const byLower = (o: unknown) =>
    new Map(Object.entries((o ?? {}) as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v]));

  /**
   * The properties compared, and a body whose values are not the defaults where a value can differ
   * (a default left alone would hide a value the XML reader dropped): booleans the other way, plain
   * nullable texts a text of their own.
   */
  function distinctBody(r: Resource, target: Target, round: number) {
    const c = r.collection;
    const body = bodyOf(c, uniqueName(target.namePrefix));
    const props = propertiesOf(suiteContract(), c.request!.schema);
    const name = nameProperty(c);
    const skip = new Set([c.idProperty, name, c.databaseProperty, ...c.dateProperties, ...c.sequences]);
    const compared: string[] = [];
    for (const [k, p] of Object.entries(props)) {
      // A format says how a text is written (a date, a URI), not checked alike here; a number's is its precision.
      if (skip.has(k) || (p.format && !typesOf(p).includes("number")) || p.pattern) continue;
      const types = typesOf(p);
      if (types.includes("boolean")) body[k] = round % 2 === 0 ? p.default !== true : p.default === true;
      else if (types.includes("number") && !p.enum && fractionFits(p, round)) body[k] = fraction(round);
      else if (types.includes("string") && types.includes("null") && !p.enum && (p.maxLength ?? 99) >= 3)
        body[k] = k.endsWith("Id") ? valueFor(p, `${round}${k}`) : edgeText(p, `${round}${k}`);
      else if (!types.some((t) => ["string", "integer", "number"].includes(t))) continue;
      compared.push(k);
    }
    return { body, compared, name };
  }

  /**
   * A decimal with a fraction for a number property (a default of 0 hid a reader that took the
   * decimal point for a thousands separator), and one of three places (one kept to the cent): 12.5
   * and 2.125, where the schema's bounds allow.
   */
  const fraction = (round: number) => (round === 0 ? 12.5 : 2.125);
  const fractionFits = (p: { minimum?: number; maximum?: number; multipleOf?: number }, round: number) =>
    p.multipleOf === undefined &&
    (p.minimum === undefined || fraction(round) >= p.minimum) &&
    (p.maximum === undefined || fraction(round) <= p.maximum);

  /**
   * A text with what a writer or a reader may mangle: spaces at both ends, XML's special characters,
   * a letter beyond ASCII and, where its length leaves room, one beyond the BMP. Not for a code (a
   * text named ...Id, whose values the description does not show). A server that trimmed texts,
   * wrote XML unescaped or read bodies as Latin-1 passed with plain letters.
   */
  function edgeText(p: PropertySchema, text: string): string {
    const base = ` ${text} <&>"'é`;
    const full = `${base} 😀 `;
    const max = p.maxLength ?? 255;
    return full.length <= max ? full : base.length <= max ? base : (valueFor(p, text) as string);
  }

  /** Whether a value read back is the one sent: a text as it was, a number or a truth value as written. */
  const asSent = (sent: unknown, read: unknown) =>
    typeof sent === "string"
      ? read === sent
      : typeof sent === "number"
        ? read !== null && read !== "" && Number(read) === sent
        : typeof sent === "boolean"
          ? String(read).toLowerCase() === String(sent)
          : norm(read) === norm(sent);

  /**
   * The XML media type of a round's XML write: both that the contract takes for a body, one each
   * (a server that refused text/xml passed when only application/xml was sent).
   */
  const xmlType = (round: number) => (round === 0 ? "application/xml" : "text/xml");

  async function write(
    api: Api,
    url: string,
    method: "POST" | "PUT",
    auth: Record<string, string>,
    xml: string | undefined,
    body: Record<string, unknown>,
    r: Resource,
  ) {
    const text = xml ? suiteContract().xml.stringify(r.collection.request!.schema, body) : JSON.stringify(body);
    // An XML write asks for XML back (Accept chooses the format of an answer, a write's too).
    return send(api, method, url, {
      headers: { ...auth, "content-type": xml ?? "application/json", accept: xml ?? "application/json" },
      body: text,
    });
  }

  for (const r of resources("editable")) {
    if (!r.op.create || !r.op.read || !r.op.update || !r.op.delete || !r.collection.request) continue;
    test(
      `${r.name}: a JSON body and an XML body with the same values store the same, read in both formats`,
      about(r),
      async ({ api, target, session }) => {
        const auth = await session.auth();
        const calls = lifecycle(api, target, r, auth);
        const ids: Record<"json" | "xml", string | undefined> = { json: undefined, xml: undefined };
        const problems: string[] = [];
        try {
          for (const round of [0, 1]) {
            const { body, compared, name } = distinctBody(r, target, round);
            const stored: Record<string, Map<string, unknown>> = {};
            for (const format of ["json", "xml"] as const) {
              const sent = { ...body };
              if (name) sent[name] = `${String(body[name]).slice(0, 20)}${format}`.slice(0, String(body[name]).length);
              const existing = ids[format];
              if (existing !== undefined)
                sent[r.collection.idProperty!] = r.collection.idIsNumber ? Number(existing) : existing;
              const url = existing === undefined ? urlOf(target, r.op.create!) : urlOf(target, r.op.update!, existing);
              const type = format === "xml" ? xmlType(round) : undefined;
              const res = await write(api, url, existing === undefined ? "POST" : "PUT", auth, type, sent, r);
              expect(res.status, `${res.call} with a ${type ?? "JSON"} body: ${quote(res.text, 300)}`).toBe(200);
              if (type) {
                expect(res.headers["content-type"] ?? "", `${res.call} asked Accept ${type}: an XML answer`).toMatch(
                  /^(application|text)\/xml/,
                );
              }
              if (existing === undefined) ids[format] = calls.idOf(type ? readXml(res.text).fields : res.json());
              expect(ids[format], `${res.call} answered no ${r.collection.idProperty}`).toBeDefined();
              const json = await calls.get(ids[format]!);
              const xml = await calls.get(ids[format]!, "application/xml");
              expect(json.status, json.call).toBe(200);
              expect(xml.status, xml.call).toBe(200);
              const asJson = byLower(json.json());
              const asXml = byLower(readXml(xml.text).fields);
              // What was stored is what was sent, not only the same whichever format sent it: a
              // server that trimmed every text or rounded decimals did so in both.
              for (const k of compared) {
                const read = asJson.get(k.toLowerCase());
                if (!asSent(sent[k], read))
                  problems.push(
                    `${k} written as ${format.toUpperCase()} with ${JSON.stringify(sent[k])}: ${json.call} reads ${JSON.stringify(read)}`,
                  );
              }
              for (const k of compared) {
                const key = k.toLowerCase();
                if (norm(asJson.get(key)) !== norm(asXml.get(key)))
                  problems.push(
                    `${k} of the object written as ${format.toUpperCase()}: JSON reads ${JSON.stringify(asJson.get(key))}, XML reads ${JSON.stringify(asXml.get(key))}`,
                  );
              }
              stored[format] = asJson;
            }
            const verb = round === 0 ? "created" : "replaced";
            for (const k of compared) {
              const [j, x] = [stored.json!.get(k.toLowerCase()), stored.xml!.get(k.toLowerCase())];
              if (norm(j) !== norm(x))
                problems.push(
                  `${k} ${verb} with ${JSON.stringify(body[k])}: written as JSON it reads ${JSON.stringify(j)}, written as XML ${JSON.stringify(x)}`,
                );
            }
          }
        } finally {
          for (const id of Object.values(ids)) if (id !== undefined) await calls.delete(id);
        }
        expect(problems, `the same values written as JSON and as XML: ${problems.join("; ")}`).toEqual([]);
      },
    );
  }
});
