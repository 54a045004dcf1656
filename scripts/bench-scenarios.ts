// The bench's headline scenarios, one list for `npm run bench` (over HTTP, against bare node:http
// and Prism) and `npm run bench:handle` (the mock's handle() in process).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { refreshForm } from "../src/mock/node/client.ts";
import { PROJECT_ROOT } from "../src/paths.ts";

/** The first customer of the project's seed: what the bench creates, and what it copies into large seeds. */
export const SEED_CUSTOMER = (
  JSON.parse(readFileSync(resolve(PROJECT_ROOT, "mock-data/Customer/DEMO.json"), "utf8")) as Array<
    Record<string, unknown>
  >
)[0]!;

export interface Request {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Scenario {
  scenario: string;
  path: string;
  /** The request, given the background user's access and refresh tokens (Prism gets placeholders). */
  request: (tokens: { access: string; refresh: string }) => Request;
  /**
   * Each answer issues the client an access token: the rounds against one mock must stay under
   * the access tokens one client may hold (A-LIMITS), or the last round measures refusals.
   */
  issuesAccessToken?: true;
}

const API = "/v1/api/DEMO";
const created = JSON.stringify({ ...SEED_CUSTOMER, CustomerId: "", Name: "Bench B.V." });
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

export const SCENARIOS: readonly Scenario[] = [
  {
    scenario: "GET Customer/{id} JSON",
    path: `${API}/Customer/1001`,
    request: (t) => ({ headers: { ...auth(t.access), accept: "application/json" } }),
  },
  {
    scenario: "GET Customer/{id} XML",
    path: `${API}/Customer/1001`,
    request: (t) => ({ headers: { ...auth(t.access), accept: "application/xml" } }),
  },
  {
    scenario: "POST Customer",
    path: `${API}/Customer`,
    request: (t) => ({
      method: "POST",
      headers: { ...auth(t.access), "content-type": "application/json" },
      body: created,
    }),
  },
  {
    scenario: "POST /OAuth/Token (refresh)",
    path: "/v1/OAuth/Token",
    request: (t) => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: refreshForm(t.refresh),
    }),
    issuesAccessToken: true,
  },
  {
    scenario: "GET CustomerInfoList $top=2 (a page)",
    path: `${API}/CustomerInfoList?$top=2&$skip=2`,
    request: (t) => ({ headers: { ...auth(t.access), accept: "application/json" } }),
  },
];

/** The exchanges the bench sends through the proxies: a read, a create and the token refresh. */
export const PROXY_SCENARIOS: readonly Scenario[] = SCENARIOS.filter((s) =>
  ["GET Customer/{id} JSON", "POST Customer", "POST /OAuth/Token (refresh)"].includes(s.scenario),
);
