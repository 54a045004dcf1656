// The customer's fields: names, types, nullability, dates, decimals, defaults.
import {
  createCustomer,
  customerBody,
  deleteCustomer,
  getCustomer,
  postCustomer,
  uniqueName,
} from "../lib/customers.ts";
import { covers, expect, test } from "../lib/fixtures.ts";
import { describeProblems, problemsOf } from "../lib/shapes.ts";

const FIELD_NAMES = Object.keys(customerBody(""));

test(
  "every field has the type and nullability of the table",
  covers("CUST-FIELDS"),
  async ({ api, target, session, contract }) => {
    const auth = await session.auth();
    const { id } = await createCustomer(api, target, auth, customerBody(uniqueName()));
    const res = await getCustomer(api, target, auth, id);
    const problems = problemsOf(contract.spec, "Customer", res.json(), target, FIELD_NAMES);
    await deleteCustomer(api, target, auth, id);
    expect(problems, `GET Customer/${id} does not fit the table: ${describeProblems(problems)}`).toEqual([]);
  },
);

test("field names are written as in the table (PascalCase)", covers("CUST-NAMES"), async ({ api, target, session }) => {
  const auth = await session.auth();
  const { id } = await createCustomer(api, target, auth, customerBody(uniqueName()));
  const answer = (await getCustomer(api, target, auth, id)).json() as Record<string, unknown>;
  await deleteCustomer(api, target, auth, id);
  const keys = Object.keys(answer);
  const missing = FIELD_NAMES.filter((n) => !keys.includes(n));
  const otherCase = missing.filter((n) => keys.some((k) => k.toLowerCase() === n.toLowerCase()));
  expect(
    missing,
    otherCase.length > 0
      ? `field names differ from the table only in case (${otherCase.length} of 55, e.g. ${keys.find((k) => k.toLowerCase() === otherCase[0]!.toLowerCase())} for ${otherCase[0]}); the description writes PascalCase. Set CONFORMANCE_CASE_INSENSITIVE_NAMES=1 to check the rest regardless.`
      : `fields missing from the answer: ${missing.join(", ")}`,
  ).toEqual([]);
});

const mdy = (v: unknown) => {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(String(v));
  return m ? `${Number(m[1])}/${Number(m[2])}/${m[3]}` : undefined;
};

test(
  "CocDate and VatVerificationDate are written as month/day/year",
  covers("CUST-DATES"),
  async ({ api, target, session }) => {
    const auth = await session.auth();
    const { id } = await createCustomer(
      api,
      target,
      auth,
      customerBody(uniqueName(), { CocDate: "03/14/2011", VatVerificationDate: "12/01/2023" }),
    );
    const answer = (await getCustomer(api, target, auth, id)).json();
    await deleteCustomer(api, target, auth, id);
    expect(
      mdy(answer.CocDate ?? answer.cocDate),
      `CocDate written as ${JSON.stringify(answer.CocDate ?? answer.cocDate)}`,
    ).toBe("3/14/2011");
    expect(
      mdy(answer.VatVerificationDate ?? answer.vatVerificationDate),
      `VatVerificationDate written as ${JSON.stringify(answer.VatVerificationDate)}`,
    ).toBe("12/1/2023");
  },
);

test(
  "CreditLimit and DiscountPercentage keep their decimals",
  covers("CUST-DECIMALS"),
  async ({ api, target, session }) => {
    const auth = await session.auth();
    const { id } = await createCustomer(
      api,
      target,
      auth,
      customerBody(uniqueName(), { CreditLimit: 12345.67, DiscountPercentage: 2.75 }),
    );
    const answer = (await getCustomer(api, target, auth, id)).json();
    await deleteCustomer(api, target, auth, id);
    expect(answer.CreditLimit ?? answer.creditLimit).toBe(12345.67);
    expect(answer.DiscountPercentage ?? answer.discountPercentage).toBe(2.75);
  },
);

test(
  "a property missing from the body is given a default and the customer is stored",
  covers("CUST-DEFAULTS"),
  async ({ api, target, session }) => {
    const auth = await session.auth();
    const body = customerBody(uniqueName());
    const omitted = ["Fax", "Homepage", "IsInFactoring", "CreditLimit", "CustomerGroupId", "Street2"];
    for (const k of omitted) delete body[k];
    const { id } = await createCustomer(api, target, auth, body);
    const answer = (await getCustomer(api, target, auth, id)).json() as Record<string, unknown>;
    await deleteCustomer(api, target, auth, id);
    const keys = Object.keys(answer).map((k) => k.toLowerCase());
    expect(
      omitted.filter((k) => !keys.includes(k.toLowerCase())),
      "omitted properties missing from the stored customer",
    ).toEqual([]);
  },
);

test("POST with a body of all properties is accepted", covers("CUST-BODY-ALL"), async ({ api, target, session }) => {
  const auth = await session.auth();
  const res = await postCustomer(api, target, auth, customerBody(uniqueName()));
  expect(res.status, `${res.call}: ${res.text.slice(0, 300)}`).toBe(200);
});
