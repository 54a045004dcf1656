import { describe, expect, it } from "vitest";
import { MARK, Redactor, redact } from "./redact.ts";

const TOKEN = "tOk3n_Abcdefghijklmnopqrstuvwxyz0123456789-AB";

describe("Redactor: known values", () => {
  const r = new Redactor();
  r.add(TOKEN);
  r.add("demo");
  r.add("p@ss w0rd&<é>");

  it.each([
    ["a long value anywhere, even inside a word", `x${TOKEN}y`, `x${MARK}y`],
    ["a short value where it stands alone", 'Fill "demo"', `Fill "${MARK}"`],
    ["not a short value inside a name", "demo-client DEMO demos", "demo-client DEMO demos"],
    ["the form spelling", "password=p%40ss+w0rd%26%3C%C3%A9%3E&x=1", `password=${MARK}&x=1`],
    ["the URL spelling", "u?p=p%40ss%20w0rd%26%3C%C3%A9%3E", `u?p=${MARK}`],
    ["the HTML spelling", "<pre>p@ss w0rd&amp;&lt;é&gt;</pre>", `<pre>${MARK}</pre>`],
    ["a head cut off where the text ends", `quoted: {"t":"${TOKEN.slice(0, 20)}`, `quoted: {"t":"${MARK}`],
    ["a head cut off before a space", `${TOKEN.slice(0, 14)} more`, `${MARK} more`],
    ["not a head shorter than twelve characters", `${TOKEN.slice(0, 11)} more`, `${TOKEN.slice(0, 11)} more`],
  ])("replaces %s", (_name, given, want) => {
    expect(r.redactKnown(given)).toBe(want);
  });

  it("keeps a JSON document a JSON document", () => {
    const doc = JSON.stringify({ message: JSON.stringify({ token: TOKEN, password: "p@ss w0rd&<é>" }) });
    const out = r.redact(doc);
    expect(out).not.toContain(TOKEN.slice(0, 12));
    expect(JSON.parse(JSON.parse(out).message)).toEqual({ token: MARK, password: MARK });
  });

  it("takes no value shorter than the minimum", () => {
    const small = new Redactor();
    expect(small.add("abc")).toBe(false);
    expect(small.add("broken", 8)).toBe(false);
    expect(small.redactKnown("abc broken")).toBe("abc broken");
  });
});

describe("redact: whatever a target returns in a field of a secret kind", () => {
  it.each([
    ["a token answer", '{"access_token":"abc","token_type":"bearer","refresh_token":"def"}'],
    ["a token answer quoted in a quoted string", String.raw`{\"access_token\":\"abc\",\"refresh_token\":\"def\"}`],
    ["a token answer cut off", '-> {"access_token":"abcdefgh'],
    ["a token answer in HTML", "&quot;access_token&quot;:&quot;abc&quot;"],
    ["a redirect's code and token", "http://localhost/cb?code=abc&state=s#access_token=def&x=1"],
    ["a form", "grant_type=refresh_token&refresh_token=abc&client_secret=def"],
    ["a form after &amp;", "grant_type=x&amp;client_secret=def"],
    [
      "headers as traces keep them",
      '[{"name":"Set-Cookie","value":"sid=abc; Path=/"},{"name":"authorization","value":"Bearer def"}]',
    ],
    ["a form as traces keep it", '"params":[{"name":"code","value":"abc"},{"name":"client_secret","value":"def"}]'],
    ["cookies of a context", '"cookies":[{"name":"sid","value":"abc","domain":"x"},{"name":"b","value":"def"}]'],
    ["a cookie header line", "cookie: sid=abc; other=def\nnext"],
    ["a bearer token", "Authorization: Bearer abc.def-123"],
    ["basic credentials", `Authorization: Basic ${Buffer.from("client:secret").toString("base64")}`],
    ["a password in an address", "https://user:def@example.test/x"],
  ])("%s", (_name, given) => {
    const out = redact(given);
    expect(out).toContain(MARK);
    expect(out).not.toMatch(/abc|def|secret@|c2VjcmV0/);
  });

  it.each([
    ["prose about the schemes", "the scheme Bearer and an access token; HTTP Basic authentication"],
    ["a challenge", 'WWW-Authenticate: Bearer error="invalid_token"'],
    ["the response type", "response_type=code&grant_type=authorization_code"],
    ["prose about cookies", "the browser's cookie and token"],
  ])("leaves %s", (_name, given) => {
    expect(redact(given)).toBe(given);
  });

  it("leaves the mark alone", () => {
    const once = redact('{"access_token":"abc"} code=abc cookie: x=y Bearer abcdef1');
    expect(redact(once)).toBe(once);
  });
});
