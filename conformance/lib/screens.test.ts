// The pure parts of the walks through the screens: the address a failed walk names in its
// message, the error a navigation the suite could not fetch ends with, where a flow answers.
import { describe, expect, it } from "vitest";
import { abortReason, resultParts, withShortValues } from "./screens.ts";

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

describe("abortReason", () => {
  it("ends a navigation the suite could not fetch with the network error the browser's own would have had", () => {
    expect(abortReason("apiRequestContext.fetch: connect ECONNREFUSED 127.0.0.1:9")).toBe("connectionrefused");
    expect(abortReason("apiRequestContext.fetch: socket hang up")).toBe("connectionreset");
    expect(abortReason("apiRequestContext.fetch: Timeout 6000ms exceeded.")).toBe("timedout");
    expect(abortReason(undefined)).toBe("failed");
  });
});

describe("resultParts", () => {
  it("reads a code flow's result in the query and a token flow's in the fragment, the other place beside it", () => {
    const back = new URL("http://localhost:5173/callback?error=access_denied&state=a#error=invalid_scope&state=b");
    expect(resultParts(back, "code").result.get("error")).toBe("access_denied");
    expect(resultParts(back, "code").elsewhere.get("error")).toBe("invalid_scope");
    expect(resultParts(back, "token").result.get("state")).toBe("b");
    expect(resultParts(back, "token").elsewhere.get("state")).toBe("a");
  });
});
