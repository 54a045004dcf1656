// The resources of the contract, read once from its paths and schemas: the
// service description's four result kinds (editable objects, info objects,
// lists, name value lists), which data each one shows, where its id and its
// database come from. The mock's store, handlers, seed, journal, faults and
// dashboard and the conformance suite all read this one model, so a new
// resource is an edit of openapi.yaml (and seed data), never code.
//
// What is read from where (decision 0015):
// - kind: from the methods of a path group under /api/ — a collection path
//   with POST and an item path `/{id}` with GET (PUT, DELETE) is editable; an
//   item path with GET only is an info object; a collection path with GET only
//   answering an array is a list, of {name, value} pairs a name value list.
// - database scope: the path starts `/api/{<param>}/`.
// - id property: the item path's parameter, `{customer_id}` ↔ `CustomerId`.
// - the data a list or an info object shows: its item schema; when that
//   schema's properties are all properties of an editable resource and hold its
//   id, it shows that resource's objects (an info projection); otherwise it has
//   read-only data of its own, shared by every path of that item schema.
// - what the contract can not say is an extension, each documented in
//   openapi/ASSUMPTIONS.md: `x-bawa-sequence` (a number the service assigns on
//   create and keeps on update) and `x-bawa-database` (a property that holds a
//   database id: filled from the path, or filtering a list to the user's databases).
import type { JsonSchema, OpenApiDocument } from "./contract.ts";

/** The result kinds of the service description ("What the service does", 6). */
export type ResourceKind = "editable" | "info" | "list" | "name-value-list";
export type Method = "GET" | "POST" | "PUT" | "DELETE";
/** What an operation does with its collection's objects. */
export type Action = "list" | "read" | "create" | "update" | "delete";

/** The format a month/day/year date property declares (A-DATES). */
export const MONTH_DAY_YEAR = "month-day-year";

/** The properties of a schema, as the model keeps them. */
export interface Shape {
  /** The component schema's name (`Customer`): its XML element and its validator. */
  schema: string;
  /** Property names in contract order. */
  properties: readonly string[];
}

/**
 * A set of objects the mock keeps, per database or for the whole service: an
 * editable resource's, or the read-only data that lists and info objects show.
 */
export interface Collection extends Shape {
  /** `Customer`; for read-only data, its item schema's name (`AdministrationInfo`). */
  name: string;
  editable: boolean;
  /** Objects are kept per database (the paths start `/api/{database}/`). */
  databaseScoped: boolean;
  /** The property that identifies an object (`CustomerId`); absent when nothing names one. */
  idProperty: string | undefined;
  /** Longest id, from the id property's `maxLength` (automatic ids have at most this many digits). */
  idMaxLength: number | undefined;
  /** Whether the id property is a number (then 0, not "", asks for an automatic one). */
  idIsNumber: boolean;
  /** The body of POST and PUT (editable only): its schema and properties. */
  request: Shape | undefined;
  /** Properties whose items are objects, with the items' properties (binding reads nested names). */
  nested: Readonly<Record<string, readonly string[]>>;
  /** Numbers the service assigns on create and keeps on update (`x-bawa-sequence`). */
  sequences: readonly string[];
  /** The property that holds a database id (`x-bawa-database`). */
  databaseProperty: string | undefined;
  /**
   * The properties the service sets itself whatever a body says (the sequences and the database),
   * each with the value a body gives to leave it to the service (its default: `OrganizationId` 0).
   */
  serviceSet: ReadonlyArray<{ name: string; unset: unknown }>;
  /** Properties written as month/day/year (`format: month-day-year`). */
  dateProperties: readonly string[];
  /** Properties of `format: decimal`: what CUST-DECIMALS compares with the decimals a write sent. */
  decimalProperties: readonly string[];
  /** The JSON types each property allows (`["string", "null"]`), and its format where it has one. */
  types: Readonly<Record<string, readonly string[]>>;
  formats: Readonly<Record<string, string>>;
  /** How ModelState keys of its errors begin, as ASP.NET names the action's parameter (`customer`). */
  modelName: string;
  /** The names of its resources (`Customer`, `CustomerInfoList`, ...), which seed folders may use too. */
  resources: readonly string[];
}

/** One operation of the contract the mock serves. */
export interface Operation {
  operationId: string;
  method: Method;
  /** The contract's path (`/api/{database_id}/Customer/{customer_id}`). */
  path: string;
  /** The resource as its address names it: `Customer`, `CustomerInfoList`, `AdministrationInfoList`. */
  resource: string;
  kind: ResourceKind;
  action: Action;
  collection: Collection;
  /** The shape of each object answered: the collection's own, or an info projection of it. */
  view: Shape;
  /** The named schema of a 200 answer: a list's array schema (`CustomerInfoList`), else the view's. */
  answers: string;
  databaseParam: string | undefined;
  idParam: string | undefined;
  /**
   * The assumption its path or operation rests on (`x-assumption`): a resource the description
   * does not show, such as the administrations (A-ADMINISTRATIONS). What is checked of it is
   * checked at the assumption kind, whatever the rule's own kind.
   */
  assumption: string | undefined;
}

/** An operation under /api/ that is none of the four kinds, and why. */
export interface Unsupported {
  method: string;
  path: string;
  reason: string;
}

/** A path of the contract with the operations the mock serves on it. */
export interface ResourcePath {
  path: string;
  operations: Partial<Record<Method, Operation>>;
}

/**
 * A list or info object that looks meant to show an editable resource's objects (its item schema
 * is named after it, or carries its id) but can not be a projection of it: it shows read-only data
 * of its own instead, and objects created never appear in it. Said at start, never in silence.
 */
export interface Detached {
  /** The list's or info object's resource (`ProductInfoList`). */
  resource: string;
  itemSchema: string;
  /** The editable resource it seems meant to show. */
  editable: string;
  /** Properties of the item schema the editable resource lacks (or why else it can not be one). */
  missing: string[];
  why: string;
}

/** What the start-up banner and the dashboard say of a detached list, in the same words. */
export const detachedText = (d: Detached): string =>
  `${d.resource} shows read-only data of its own, not ${d.editable}'s objects: ${d.why} (README, "Adding a resource")`;

export interface ResourceModel {
  collections: readonly Collection[];
  operations: readonly Operation[];
  paths: readonly ResourcePath[];
  unsupported: readonly Unsupported[];
  /** Lists and info objects that show data of their own where an editable resource's was likely meant. */
  detached: readonly Detached[];
  /** The resources by name: one entry per address (`Customer`, `CustomerInfoList`). */
  resources: ReadonlyMap<string, { kind: ResourceKind; collection: Collection; operations: readonly Operation[] }>;
  collection(name: string): Collection | undefined;
}

type Schema = JsonSchema & {
  $ref?: string;
  type?: string | string[];
  format?: string;
  maxLength?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  "x-bawa-sequence"?: unknown;
  "x-bawa-database"?: unknown;
};
type OperationObject = {
  operationId?: string;
  requestBody?: { $ref?: string; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: Schema }> }>;
};

const METHODS: readonly Method[] = ["GET", "POST", "PUT", "DELETE"];
/** A resource's name is a segment of its address, and the name of its seed folder. */
const RESOURCE_NAME = /^[A-Za-z0-9_-]+$/;
/** OpenAPI's names of components, less those a folder can not be called (`.`, `..`). */
const SCHEMA_NAME = /^(?!\.+$)[A-Za-z0-9._-]+$/;
const REF = "#/components/schemas/";

/** A contract problem that makes a resource unusable; the model names it rather than guess. */
export class ResourceModelError extends Error {
  override name = "ResourceModelError";
}

/** `customer_id` → `CustomerId` (and `customerId`, `CustomerID` → the property that matches without case). */
export function propertyOfParameter(param: string, properties: readonly string[]): string | undefined {
  const pascal = pascalOf(param);
  if (properties.includes(pascal)) return pascal;
  const loose = pascal.toLowerCase();
  return properties.find((p) => p.toLowerCase() === loose);
}

const pascalOf = (param: string) =>
  param
    .split(/[_-]/)
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");

/** The `x-assumption` a node of the contract (a path item, an operation) rests on. */
export const assumptionOf = (node: unknown): string | undefined => {
  const a = (node as { "x-assumption"?: unknown } | undefined)?.["x-assumption"];
  return typeof a === "string" ? a : undefined;
};

/** Reads the resource model of a contract. Throws ResourceModelError for a contract it can not read. */
export function buildResourceModel(doc: OpenApiDocument): ResourceModel {
  const schemas = doc.components.schemas as Record<string, Schema>;
  const named = (ref: string | undefined) => (ref?.startsWith(REF) ? ref.slice(REF.length) : undefined);
  const resolve = (s: Schema | undefined): Schema | undefined => {
    let out = s;
    for (let depth = 0; out?.$ref && depth < 20; depth++) {
      const { $ref, ...siblings } = out;
      out = { ...schemas[named($ref) ?? ""], ...siblings };
    }
    return out;
  };
  const propsOf = (name: string) => Object.keys(resolve(schemas[name])?.properties ?? {});
  const unsupported: Unsupported[] = [];

  /** The component schema an operation answers with on 200 (JSON), or why not. */
  const answerSchema = (op: OperationObject): string | { reason: string } => {
    let res = op.responses?.["200"];
    const responses = (doc.components as { responses?: Record<string, typeof res> }).responses;
    if (res?.$ref) res = responses?.[res.$ref.split("/").pop()!];
    const schema = res?.content?.["application/json"]?.schema;
    if (!schema) return { reason: "it declares no JSON answer for 200" };
    return named(schema.$ref) ?? { reason: "its JSON answer is not a named schema (#/components/schemas/...)" };
  };
  const requestSchema = (op: OperationObject): string | undefined => {
    let body = op.requestBody;
    const bodies = (doc.components as { requestBodies?: Record<string, typeof body> }).requestBodies;
    if (body?.$ref) body = bodies?.[body.$ref.split("/").pop()!];
    return named(body?.content?.["application/json"]?.schema?.$ref);
  };

  // ── the path groups under /api/: database parameter, resource name, item parameter ──
  interface Group {
    name: string;
    databaseParam: string | undefined;
    collectionPath?: { path: string; ops: Partial<Record<Method, OperationObject>> };
    itemPath?: { path: string; param: string; ops: Partial<Record<Method, OperationObject>> };
  }
  const groups = new Map<string, Group>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const segments = path.split("/").slice(1);
    if (segments[0]?.toLowerCase() !== "api") continue;
    const ops: Partial<Record<Method, OperationObject>> = {};
    for (const [m, op] of Object.entries(item)) {
      const method = m.toUpperCase();
      if ((METHODS as readonly string[]).includes(method)) ops[method as Method] = op as OperationObject;
      else if (["PATCH", "HEAD", "OPTIONS", "TRACE"].includes(method)) {
        unsupported.push({ method, path, reason: `the result kinds have no ${method}` });
      }
    }
    const param = (s: string | undefined) => (s && /^\{[^}]+\}$/.test(s) ? s.slice(1, -1) : undefined);
    let rest = segments.slice(1);
    const databaseParam = param(rest[0]);
    if (databaseParam) rest = rest.slice(1);
    const [name, idSegment, ...deeper] = rest;
    const idParam = param(idSegment);
    if (!name || param(name) || deeper.length > 0 || (idSegment !== undefined && !idParam)) {
      for (const method of Object.keys(ops)) {
        unsupported.push({
          method,
          path,
          reason: "its path is not /api/[{database}/]<Resource>[/{id}], the address of one of the result kinds",
        });
      }
      continue;
    }
    if (!RESOURCE_NAME.test(name)) {
      throw new ResourceModelError(
        `${path}: the resource name ${JSON.stringify(name)} is not one requests can reach as written (a request's "." and ".." segments are resolved away, a "." before json or xml chooses the format, other characters are escaped or reserved in a path): name it with letters, digits, "_" and "-"`,
      );
    }
    const key = `${databaseParam ? "db" : "global"}:${name.toLowerCase()}`;
    const group = groups.get(key) ?? { name, databaseParam };
    if (idParam) group.itemPath = { path, param: idParam, ops };
    else group.collectionPath = { path, ops };
    groups.set(key, group);
  }

  // ── collections of editable resources first: lists and info objects may show their objects ──
  const collections: Collection[] = [];
  const operations: Operation[] = [];
  const makeCollection = (c: {
    name: string;
    schema: string;
    editable: boolean;
    databaseScoped: boolean;
    idProperty: string | undefined;
    request: string | undefined;
    resources: string[];
  }): Collection => {
    const s = resolve(schemas[c.schema]) ?? {};
    const props = s.properties ?? {};
    const requestProps = c.request ? (resolve(schemas[c.request])?.properties ?? {}) : props;
    // No prototype: binding looks up every property name a body sends, and "toString" is none.
    const nested: Record<string, string[]> = Object.create(null);
    const dates: string[] = [];
    const sequences: string[] = [];
    let databaseProperty: string | undefined;
    for (const [k, raw] of Object.entries({ ...props, ...requestProps })) {
      const p = resolve(raw) ?? {};
      const items = resolve(p.items);
      if (items?.properties) nested[k] = Object.keys(items.properties);
      if (p.format === MONTH_DAY_YEAR) dates.push(k);
      if (raw["x-bawa-sequence"] === true || p["x-bawa-sequence"] === true) sequences.push(k);
      if (raw["x-bawa-database"] === true || p["x-bawa-database"] === true) databaseProperty ??= k;
    }
    const types: Record<string, string[]> = {};
    const formats: Record<string, string> = {};
    for (const [k, raw] of Object.entries(props)) {
      const p = resolve(raw) ?? {};
      types[k] = [p.type].flat().filter((t): t is string => typeof t === "string");
      if (typeof p.format === "string") formats[k] = p.format;
    }
    const id = c.idProperty ? resolve(props[c.idProperty]) : undefined;
    return {
      types,
      formats,
      name: c.name,
      schema: c.schema,
      properties: Object.keys(props),
      editable: c.editable,
      databaseScoped: c.databaseScoped,
      idProperty: c.idProperty,
      idMaxLength: typeof id?.maxLength === "number" ? id.maxLength : undefined,
      idIsNumber: [id?.type].flat().some((t) => t === "integer" || t === "number"),
      request: c.request ? { schema: c.request, properties: Object.keys(requestProps) } : undefined,
      nested,
      sequences: [...new Set(sequences)],
      databaseProperty,
      serviceSet: [...new Set([...sequences, ...(databaseProperty === undefined ? [] : [databaseProperty])])].map(
        (name) => {
          const p = resolve(requestProps[name]) ?? {};
          return { name, unset: requestProps[name]?.default ?? p.default ?? null };
        },
      ),
      dateProperties: [...new Set(dates)],
      decimalProperties: Object.keys(formats).filter((k) => formats[k] === "decimal"),
      modelName: c.name.charAt(0).toLowerCase() + c.name.slice(1),
      resources: c.resources,
    };
  };
  const operationOf = (
    g: Group,
    path: string,
    method: Method,
    op: OperationObject,
    rest: Omit<Operation, "operationId" | "method" | "path" | "databaseParam" | "assumption">,
  ): Operation => ({
    operationId: op.operationId ?? `${method} ${path}`,
    method,
    path,
    databaseParam: g.databaseParam,
    assumption: assumptionOf(doc.paths[path]) ?? assumptionOf(op),
    ...rest,
  });

  const pendingViews: Array<{
    g: Group;
    path: string;
    method: Method;
    op: OperationObject;
    kind: ResourceKind;
    action: Action;
    itemSchema: string;
    answers: string;
    idParam?: string;
  }> = [];
  for (const g of groups.values()) {
    const coll = g.collectionPath?.ops ?? {};
    const item = g.itemPath?.ops ?? {};
    const where = (path: string | undefined, method: string, reason: string) =>
      unsupported.push({ method, path: path ?? "", reason });
    if (coll.POST && item.GET) {
      // Editable: collection POST, item GET (PUT, DELETE).
      const schema = answerSchema(item.GET);
      const request = requestSchema(coll.POST);
      if (typeof schema !== "string") {
        where(g.itemPath!.path, "GET", `GET ${g.name}/{id}: ${schema.reason}`);
        continue;
      }
      const idProperty = propertyOfParameter(g.itemPath!.param, propsOf(schema));
      if (!idProperty) {
        throw new ResourceModelError(
          `${g.itemPath!.path}: the path parameter {${g.itemPath!.param}} names no property of ${schema} (expected ${pascalOf(g.itemPath!.param)}); name the parameter after the id property`,
        );
      }
      if (!request) {
        throw new ResourceModelError(`POST ${g.collectionPath!.path}: its request body is not a named JSON schema`);
      }
      const resources = [g.name];
      const c = makeCollection({
        name: g.name,
        schema,
        editable: true,
        databaseScoped: g.databaseParam !== undefined,
        idProperty,
        request,
        resources,
      });
      collections.push(c);
      const view = { schema, properties: c.properties };
      const add = (path: string, method: Method, op: OperationObject, action: Action, idParam?: string) =>
        operations.push(
          operationOf(g, path, method, op, {
            resource: g.name,
            kind: "editable",
            action,
            collection: c,
            view,
            answers: schema,
            idParam,
          }),
        );
      add(g.collectionPath!.path, "POST", coll.POST, "create");
      add(g.itemPath!.path, "GET", item.GET, "read", g.itemPath!.param);
      if (item.PUT) add(g.itemPath!.path, "PUT", item.PUT, "update", g.itemPath!.param);
      if (item.DELETE) add(g.itemPath!.path, "DELETE", item.DELETE, "delete", g.itemPath!.param);
      if (coll.GET) {
        const list = answerSchema(coll.GET);
        const items = typeof list === "string" ? named(resolve(schemas[list])?.items?.$ref) : undefined;
        if (items)
          pendingViews.push({
            g,
            path: g.collectionPath!.path,
            method: "GET",
            op: coll.GET,
            kind: "list",
            action: "list",
            itemSchema: items,
            answers: list as string,
          });
        else where(g.collectionPath!.path, "GET", "a list answers a named array schema of named objects");
      }
      for (const m of ["PUT", "DELETE"] as const)
        if (coll[m]) where(g.collectionPath!.path, m, `${m} on a collection is none of the result kinds`);
      if (item.POST) where(g.itemPath!.path, "POST", "POST on an object is none of the result kinds");
      continue;
    }
    // Read-only kinds: GET only.
    for (const [path, ops] of [
      [g.collectionPath?.path, coll],
      [g.itemPath?.path, item],
    ] as const) {
      for (const m of ["POST", "PUT", "DELETE"] as const) {
        if (ops[m]) where(path, m, `${m} without the collection POST and item GET of an editable object`);
      }
    }
    if (item.GET) {
      const schema = answerSchema(item.GET);
      if (typeof schema === "string") {
        pendingViews.push({
          g,
          path: g.itemPath!.path,
          method: "GET",
          op: item.GET,
          kind: "info",
          action: "read",
          itemSchema: schema,
          answers: schema,
          idParam: g.itemPath!.param,
        });
      } else where(g.itemPath!.path, "GET", schema.reason);
    }
    if (coll.GET) {
      const list = answerSchema(coll.GET);
      const listSchema = typeof list === "string" ? resolve(schemas[list]) : undefined;
      const items = named(listSchema?.items?.$ref);
      if (!items) {
        where(g.collectionPath!.path, "GET", "a list answers a named array schema of named objects");
        continue;
      }
      const itemProps = propsOf(items)
        .map((p) => p.toLowerCase())
        .sort();
      const nameValue = itemProps.length === 2 && itemProps[0] === "name" && itemProps[1] === "value";
      pendingViews.push({
        g,
        path: g.collectionPath!.path,
        method: "GET",
        op: coll.GET,
        kind: nameValue ? "name-value-list" : "list",
        action: "list",
        itemSchema: items,
        answers: list as string,
      });
    }
  }

  // ── lists and info objects: the editable objects they project, or read-only data of their own ──
  const editable = [...collections];
  const detached: Detached[] = [];
  for (const v of pendingViews) {
    const itemProps = propsOf(v.itemSchema);
    const source =
      editable.find((c) => c.schema === v.itemSchema) ??
      editable
        .filter(
          (c) =>
            c.databaseScoped === (v.g.databaseParam !== undefined) &&
            c.idProperty !== undefined &&
            itemProps.includes(c.idProperty) &&
            itemProps.every((p) => c.properties.includes(p)),
        )
        // Of several, the one whose name the item schema begins with (CustomerInfo → Customer).
        .sort(
          (a, b) =>
            Number(v.itemSchema.startsWith(b.name)) - Number(v.itemSchema.startsWith(a.name)) ||
            b.name.length - a.name.length,
        )[0];
    let c = source;
    if (!c) {
      // Meant to show an editable resource (named after it, or carrying its id) and can not: said.
      const meant = editable.find(
        (e) =>
          e.databaseScoped === (v.g.databaseParam !== undefined) &&
          (v.itemSchema.startsWith(e.name) || (e.idProperty !== undefined && itemProps.includes(e.idProperty))),
      );
      if (meant && !detached.some((d) => d.resource === v.g.name)) {
        const missing = itemProps.filter((p) => !meant.properties.includes(p));
        const why =
          missing.length > 0
            ? `${missing.join(", ")} ${missing.length > 1 ? "are not properties" : "is not a property"} of ${meant.name}`
            : meant.idProperty === undefined || !itemProps.includes(meant.idProperty)
              ? `it does not carry ${meant.idProperty ?? `an id of ${meant.name}`}`
              : `it is ${v.g.databaseParam !== undefined ? "per database" : "of the whole service"} and ${meant.name} is not`;
        detached.push({ resource: v.g.name, itemSchema: v.itemSchema, editable: meant.name, missing, why });
      }
      c = collections.find((x) => !x.editable && x.schema === v.itemSchema);
      if (c && c.databaseScoped !== (v.g.databaseParam !== undefined)) {
        throw new ResourceModelError(
          `${v.path}: ${v.itemSchema} is shown per database on one path and for the whole service on another`,
        );
      }
      if (!c) {
        // Its name names its seed folder (mock-data/<name>/) and its lines in a data directory.
        if (!SCHEMA_NAME.test(v.itemSchema)) {
          throw new ResourceModelError(
            `#/components/schemas/${v.itemSchema}: ${v.path} shows its objects, so its name names their seed folder: name it with letters, digits, ".", "_" and "-", not dots alone`,
          );
        }
        const idParam = v.idParam ?? pendingViews.find((o) => o.itemSchema === v.itemSchema && o.idParam)?.idParam;
        const idProperty = idParam
          ? propertyOfParameter(idParam, itemProps)
          : propertyOfParameter(`${v.itemSchema.replace(/Info$/, "")}_id`, itemProps);
        c = makeCollection({
          name: v.itemSchema,
          schema: v.itemSchema,
          editable: false,
          databaseScoped: v.g.databaseParam !== undefined,
          idProperty,
          request: undefined,
          resources: [],
        });
        collections.push(c);
      }
    }
    if (v.kind === "info" && c.idProperty === undefined) {
      throw new ResourceModelError(`${v.path}: {${v.idParam}} names no property of ${v.itemSchema}`);
    }
    (c.resources as string[]).push(v.g.name);
    operations.push(
      operationOf(v.g, v.path, v.method, v.op, {
        resource: v.g.name,
        kind: v.kind,
        action: v.action,
        collection: c,
        view: { schema: v.itemSchema, properties: itemProps },
        answers: v.answers,
        idParam: v.idParam,
      }),
    );
  }
  for (const c of collections) (c as unknown as { resources: string[] }).resources = [...new Set(c.resources)];

  const paths = new Map<string, ResourcePath>();
  for (const op of operations) {
    const p = paths.get(op.path) ?? { path: op.path, operations: {} };
    p.operations[op.method] = op;
    paths.set(op.path, p);
  }
  const resources = new Map<string, { kind: ResourceKind; collection: Collection; operations: Operation[] }>();
  for (const op of operations) {
    const r = resources.get(op.resource) ?? { kind: op.kind, collection: op.collection, operations: [] };
    r.operations.push(op);
    resources.set(op.resource, r);
  }
  const byName = new Map(collections.map((c) => [c.name, c]));
  return {
    collections,
    operations,
    paths: [...paths.values()],
    unsupported,
    detached,
    resources,
    collection: (name) => byName.get(name),
  };
}
