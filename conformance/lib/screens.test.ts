// The address a failed walk names in its message: long query values cut, the rest as it was.
import { describe, expect, it } from "vitest";
import { withShortValues } from "./screens.ts";

describe("withShortValues", () => {
  it("cuts a query value over 60 characters to its first 24 and its length; shorter ones stay", () => {
    const state = "eyJ".repeat(120);
    const short = withShortValues(`http://127.0.0.1:1/v1/OAuth/Authorize?client_id=demo&state=${state}`);
    const u = new URL(short);
    expect(u.searchParams.get("client_id")).toBe("demo");
    expect(u.searchParams.get("state")).toBe(`${state.slice(0, 24)}…(360 characters)`);
    expect(short.length).toBeLessThan(150);
  });
});
