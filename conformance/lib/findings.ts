// Findings that make other checks meaningless: field names in another case
// (camelCase JSON), dates in another format. Each is probed once per worker,
// reported once under its own requirement (CUST-NAMES, CUST-DATES), and the
// checks that depend on it are skipped as "not checked because of" it, not
// failed, unless the run's options let them go on (decision 0012).
import type { OpenApiDocument } from "../../src/contract/index.ts";
import { type DateFormat, dateFormatOf } from "../../src/rules/dates.ts";
import { otherCase, valueNamed } from "../../src/rules/names.ts";
import type { Target } from "./config.ts";
import { createCustomer, customerBody, deleteCustomer, firstCustomerId, getCustomer, uniqueName } from "./customers.ts";
import type { Api } from "./http.ts";
import { NOT_CHECKED } from "./requirements.ts";

export interface Findings {
  /** Described fields the JSON answer writes in another case: [as written, as the table names it]. */
  otherCase: Array<[string, string]>;
  /** The format the dates are written in, when a date was there to see. */
  dateFormat?: DateFormat | "other";
  dateExample?: string;
}

export const DATE_FIELDS = ["CocDate", "VatVerificationDate"] as const;

/** The customer's fields as the description's table lists them (PascalCase). */
export function describedFields(doc: OpenApiDocument): string[] {
  return Object.keys((doc.components.schemas.Customer as { properties: object }).properties);
}

/** Reads a customer the way the checks see one, and notes what is off in its names and dates. */
export async function probe(
  api: Api,
  t: Target,
  auth: Record<string, string>,
  fields: readonly string[],
): Promise<Findings> {
  const look = async (id: string): Promise<Findings> => {
    const reply = await getCustomer(api, t, auth, id);
    const answer = reply.status === 200 ? (reply.json() as Record<string, unknown>) : {};
    const date = valueNamed(answer, "CocDate");
    const format = dateFormatOf(date);
    return {
      otherCase: otherCase(answer, fields),
      ...(format ? { dateFormat: format, dateExample: String(date) } : {}),
    };
  };
  // A read-only run looks at a customer that is there; its dates may be empty, then only names are probed.
  if (t.readOnly) {
    const id = await firstCustomerId(api, t, auth);
    return id === undefined ? { otherCase: [] } : look(id);
  }
  const { id } = await createCustomer(api, t, auth, customerBody(uniqueName(t.namePrefix), { CocDate: "03/14/2011" }));
  try {
    return await look(id);
  } finally {
    await deleteCustomer(api, t, auth, id);
  }
}

/** Why a check that depends on a finding is not checked, or undefined when it may go on. */
export function notCheckedBecause(
  f: Findings,
  t: Target,
  on: { names?: boolean; dates?: boolean },
): string | undefined {
  if (on.names && f.otherCase.length > 0 && !t.caseInsensitiveNames) {
    const [written, field] = f.otherCase[0]!;
    return `${NOT_CHECKED}CUST-NAMES: JSON field names differ from the table in case (${written} for ${field}, ${f.otherCase.length} in all); set CONFORMANCE_CASE_INSENSITIVE_NAMES=1 to check this regardless`;
  }
  if (
    on.dates &&
    f.dateFormat &&
    f.dateFormat !== "mdy" &&
    !(f.dateFormat !== "other" && t.acceptDateFormats.has(f.dateFormat))
  ) {
    const option =
      f.dateFormat === "other" ? "" : `; set CONFORMANCE_ACCEPT_DATE_FORMATS=${f.dateFormat} to check this regardless`;
    return `${NOT_CHECKED}CUST-DATES: dates are written ${describeFormat(f.dateFormat)} (${f.dateExample})${option}`;
  }
  return undefined;
}

export const describeFormat = (f: DateFormat | "other") =>
  ({ mdy: "month/day/year", iso: "ISO yyyy-MM-dd", dmy: "d-M-yyyy", other: "in an unknown format" })[f];
