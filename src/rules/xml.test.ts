// The description-level reading of an XML answer, as the suite's checks and the judge read it.
import { describe, expect, it } from "vitest";
import { readXml } from "./xml.ts";

describe("readXml", () => {
  it("keeps CDATA sections as written and decodes entities only outside them, as the mock reads a body", () => {
    const { root, fields } = readXml(
      "<Customer><Name><![CDATA[a&amp;b]]></Name><City>Vis &amp; <![CDATA[x<y&z]]> Zn.</City></Customer>",
    );
    expect(root).toBe("Customer");
    expect(fields).toEqual({ Name: "a&amp;b", City: "Vis & x<y&z Zn." });
  });

  it("reads an empty element and one marked nil as null, whatever the nil attribute's prefix", () => {
    const { fields } = readXml(
      '<Customer xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Street1/><City i:nil="true"/><Name>Vis</Name></Customer>',
    );
    expect(fields).toEqual({ Street1: null, City: null, Name: "Vis" });
  });

  it("refuses a document that is not well-formed, saying where", () => {
    expect(() => readXml("<Customer><Name>Vis</Customer>")).toThrow(/^XML is not well-formed: .* \(line 1\)$/);
  });
});
