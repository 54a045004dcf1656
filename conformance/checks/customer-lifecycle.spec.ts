// What the description says of the customer's identifiers and body, read through its lifecycle.
// The lifecycle itself (SVC-METHODS) is checked for every editable resource in resources.spec.ts.
import {
  createCustomer,
  customerBody,
  deleteCustomer,
  getCustomer,
  putCustomer,
  uniqueName,
} from "../lib/customers.ts";
import { valueNamed } from "../lib/names.ts";
import { coversWriting, expect, test } from "../lib/test.ts";

test(
  "POST, GET, PUT, GET, DELETE, GET 404",
  coversWriting("CUST-CREATE-ID", "CUST-UPDATE-ID", "CUST-BODY-ALL"),
  async ({ api, target, session }) => {
    const auth = await session.auth();
    const name = uniqueName();
    const body = customerBody(name);
    expect(body.CustomerId).toBe("");
    expect(body.OrganizationId).toBe(0);
    expect(Object.keys(body)).toHaveLength(55);

    const { id } = await createCustomer(api, target, auth, body);
    expect(id, "the service gives the customer its identifier").not.toBe("");

    const read = await getCustomer(api, target, auth, id);
    expect(read.status, `${read.call} right after POST`).toBe(200);
    const stored = read.json();
    expect(valueNamed(stored, "Name")).toBe(name);
    expect(valueNamed(stored, "CustomerId")).toBe(id);

    const changed = await putCustomer(api, target, auth, id, {
      ...body,
      CustomerId: id,
      City: "Amersfoort",
      Telephone: "033 7654321",
    });
    expect(changed.status, `${changed.call}: ${changed.text.slice(0, 300)}`).toBe(200);
    const reread = (await getCustomer(api, target, auth, id)).json();
    expect(valueNamed(reread, "City"), "PUT's change is read back").toBe("Amersfoort");
    expect(valueNamed(reread, "Telephone")).toBe("033 7654321");

    const removed = await deleteCustomer(api, target, auth, id);
    expect(removed.status, removed.call).toBe(200);
    const gone = await getCustomer(api, target, auth, id);
    expect(gone.status, `${gone.call} after DELETE`).toBe(404);
  },
);
