// Customer calls shared by the checks. Only what the description says is
// relied on: the id of a created customer is read from POST's answer when
// it has one, else looked up in the info list by the unique name sent.
import { test } from "@playwright/test";
import { apiBase, type Target } from "./config.ts";
import { uniqueName } from "./created.ts";
import { type Api, notAddressable, notCreated, type Reply, send } from "./http.ts";
import { NOT_CHECKED } from "./requirements.ts";

export { uniqueName };

export const customerUrl = (t: Target, id?: string, letter: "v" | "V" = "v") =>
  `${apiBase(t, letter)}/api/${encodeURIComponent(t.database)}/Customer${id === undefined ? "" : `/${encodeURIComponent(id)}`}`;
export const infoListUrl = (t: Target, letter: "v" | "V" = "v") =>
  `${apiBase(t, letter)}/api/${encodeURIComponent(t.database)}/CustomerInfoList`;

/** A body with all 55 properties; coded fields are null where the table allows it, since allowed codes are not shown. */
export function customerBody(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ApplyOrderSurcharge: false,
    ChargeVatTypeId: "J",
    CollectiveInvoiceSystemId: null,
    CombineInvoicesForElectronicBanking: false,
    CreditLimit: 1250.5,
    CreditSqueezeId: null,
    CurrencyId: null,
    CustomerGroupId: 0,
    CustomerStateId: null,
    Database: null,
    DeliveryConditionId: null,
    DiscountPercentage: 1.5,
    HasOutstandingBalance: false,
    IncludeUnpaidInvoices: false,
    IntrastatGoodsCodeId: null,
    IntrastatGoodsDistributionId: null,
    IntrastatStatSystemId: null,
    IntrastatTrafficRegionId: null,
    IntrastatTransactionTypeId: null,
    IntrastatTransportTypeId: null,
    InvoiceOnBehalfOfMembers: false,
    IsDunForPayment: false,
    IsInFactoring: false,
    IsPaymentRefRequired: false,
    PaymentConditionId: null,
    Person: "Conformance Suite",
    PricelistId: null,
    PrintPurchaseDetails: false,
    PurchaseOrganizationId: null,
    RevenueAccountId: null,
    VatScenarioId: null,
    AccountManagerId: null,
    Addresses: null,
    BusinessNumber: null,
    City: "Utrecht",
    CocCity: null,
    CocDate: "03/14/2011",
    CocRegistration: null,
    CountryId: null,
    CustomerId: "",
    Email: "conformance@example.invalid",
    Fax: null,
    Homepage: null,
    LanguageId: null,
    MobilePhone: null,
    Name: name,
    OrganizationId: 0,
    ShortName: null,
    Street1: "Oudegracht 1",
    Street2: null,
    SupplierId: null,
    Telephone: "030 1234567",
    VatNumber: null,
    VatVerificationDate: "12/01/2023",
    ZipCode: "3511 AA",
  };
  return { ...body, ...overrides };
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };

export async function postCustomer(
  api: Api,
  t: Target,
  auth: Record<string, string>,
  body: Record<string, unknown>,
): Promise<Reply> {
  return send(api, "POST", customerUrl(t), { headers: { ...auth, ...JSON_HEADERS }, body: JSON.stringify(body) });
}

/** Creates a customer and learns its id, or fails saying why it could not. */
export async function createCustomer(
  api: Api,
  t: Target,
  auth: Record<string, string>,
  body: Record<string, unknown>,
): Promise<{ id: string; reply: Reply }> {
  const reply = await postCustomer(api, t, auth, body);
  notCreated(reply, "CUST-BODY-ALL");
  let id: unknown;
  try {
    const answer = reply.json();
    id = answer?.CustomerId ?? answer?.customerId;
  } catch {
    // The description does not show POST's answer; fall back to the list.
  }
  if (typeof id === "string" && id !== "") {
    const answered = id;
    await notAddressable(api, "Customer", () => getCustomer(api, t, auth, answered));
  } else id = (await listed(api, t, auth, body.Name)).id;
  test.skip(
    typeof id !== "string" || id === "",
    `${NOT_CHECKED}CUST-CREATE-ID: cannot learn the id of the customer created by ${reply.call}: its answer has no CustomerId and the info list does not show the name ${String(body.Name)}`,
  );
  return { id: id as string, reply };
}

/** The customer the info list shows with this unique name, or a failure saying it shows none. */
export async function createdByName(
  api: Api,
  t: Target,
  auth: Record<string, string>,
  name: string,
): Promise<{ id: string }> {
  const { list, items, id } = await listed(api, t, { ...auth, accept: "application/json" }, name);
  // A list that is no list is INFO-LIST's finding: nothing can be found in it.
  test.skip(list.status === 200 && !Array.isArray(items), `${NOT_CHECKED}INFO-LIST: ${list.call} is not a list`);
  if (typeof id !== "string" || id === "") throw new Error(`${list.call} shows no customer named ${name}`);
  return { id };
}

/** The info list, and the id of the customer it shows with this unique name (any spelling of CustomerId). */
async function listed(api: Api, t: Target, headers: Record<string, string>, name: unknown) {
  const list = await send(api, "GET", infoListUrl(t), { headers });
  const items: unknown = list.status === 200 ? list.json() : [];
  const found = Array.isArray(items)
    ? (items as Array<Record<string, unknown>>).find((i) => Object.values(i).includes(name))
    : undefined;
  return { list, items, id: found?.CustomerId ?? found?.customerId };
}

export async function getCustomer(
  api: Api,
  t: Target,
  auth: Record<string, string>,
  id: string,
  accept = "application/json",
): Promise<Reply> {
  return send(api, "GET", customerUrl(t, id), { headers: { ...auth, accept } });
}

export async function putCustomer(
  api: Api,
  t: Target,
  auth: Record<string, string>,
  id: string,
  body: Record<string, unknown>,
): Promise<Reply> {
  return send(api, "PUT", customerUrl(t, id), { headers: { ...auth, ...JSON_HEADERS }, body: JSON.stringify(body) });
}

export async function deleteCustomer(api: Api, t: Target, auth: Record<string, string>, id: string): Promise<Reply> {
  return send(api, "DELETE", customerUrl(t, id), { headers: auth });
}

/** The id of the first customer the info list shows, if it shows one. */
export async function firstCustomerId(api: Api, t: Target, auth: Record<string, string>): Promise<string | undefined> {
  const list = await send(api, "GET", infoListUrl(t), { headers: { ...auth, accept: "application/json" } });
  const items = list.status === 200 ? (list.json() as Array<Record<string, unknown>>) : [];
  const first = Array.isArray(items) ? items[0] : undefined;
  const id = first?.CustomerId ?? first?.customerId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/**
 * A customer to read: one created for the check (deleted by `done`), or in a read-only run the
 * first one the info list shows, left as it is. Read-only runs need a database with a customer.
 */
export async function aCustomer(
  api: Api,
  t: Target,
  auth: Record<string, string>,
  body: Record<string, unknown> = customerBody(uniqueName(t.namePrefix)),
): Promise<{ id: string; done: () => Promise<void> }> {
  if (t.readOnly) {
    const id = await firstCustomerId(api, t, auth);
    if (id === undefined)
      throw new Error(
        `a read-only run reads an existing customer, and GET ${infoListUrl(t)} shows none; use a database with at least one customer`,
      );
    return { id, done: async () => undefined };
  }
  const { id } = await createCustomer(api, t, auth, body);
  return { id, done: () => deleteCustomer(api, t, auth, id).then(() => undefined) };
}
