// What the description says of the customer's identifiers and body, read through its lifecycle.
// The lifecycle itself (SVC-METHODS) is checked for every editable resource in resources.spec.ts.

import { valueNamed } from "../../src/rules/names.ts";
import {
  createCustomer,
  createdByName,
  deleteCustomer,
  getCustomer,
  postCustomer,
  putCustomer,
  uniqueName,
} from "../lib/customers.ts";
import { notAddressable } from "../lib/http.ts";
import { checks, coversWriting, expect, expectSucceeded, test } from "../lib/test.ts";

checks(() => {
  // Bodies here hold a few properties (the rest get their defaults): a service that refuses a body
  // of every property is CUST-BODY-ALL's finding, not these rules'.
  const partial = (name: string, extra: Record<string, unknown> = {}) => ({
    CustomerId: "",
    OrganizationId: 0,
    Name: name,
    City: "Utrecht",
    ...extra,
  });

  test(
    'a customer created with CustomerId "" and OrganizationId 0 gets its identifier from the service',
    coversWriting("CUST-CREATE-ID"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const name = uniqueName(target.namePrefix);
      const posted = await postCustomer(api, target, auth, partial(name));
      expectSucceeded(posted, `${posted.call}: ${posted.text.slice(0, 300)}`);
      const answered = valueNamed(posted.json(), "CustomerId");
      // Whatever the answer said, the customer goes again (found by its unique name).
      const { id } = await createdByName(api, target, auth, name);
      await deleteCustomer(api, target, auth, id);
      // Another id in the answer than the customer has, one that addresses nothing, is
      // SVC-RESOURCE-ADDRESS's finding: the rule that POST's answer names the object's address.
      if (typeof answered === "string" && answered !== "" && answered !== id) {
        await notAddressable(api, "Customer", () => getCustomer(api, target, auth, answered));
      }
      expect(answered, `${posted.call} answers the identifier the service gave`).toBe(id);
      expect(id, "the identifier the service gave").not.toBe("");
    },
  );

  test(
    "PUT with the CustomerId of the path changes that customer",
    coversWriting("CUST-UPDATE-ID"),
    async ({ api, target, session }) => {
      const auth = await session.auth();
      const name = uniqueName(target.namePrefix);
      const { id } = await createCustomer(api, target, auth, partial(name));
      const changed = await putCustomer(
        api,
        target,
        auth,
        id,
        partial(name, {
          CustomerId: id,
          City: "Amersfoort",
          Telephone: "033 7654321",
        }),
      );
      const reread = (await getCustomer(api, target, auth, id)).json();
      await deleteCustomer(api, target, auth, id);
      expectSucceeded(changed, `${changed.call}: ${changed.text.slice(0, 300)}`);
      expect(valueNamed(reread, "City"), "PUT's change is read back").toBe("Amersfoort");
      expect(valueNamed(reread, "Telephone")).toBe("033 7654321");
    },
  );
});
