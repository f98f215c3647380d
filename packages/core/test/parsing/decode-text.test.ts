import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { decodeText } from "../../src/parsing/decode-text.ts";
import { ParseError } from "../../src/parsing/parse-error.ts";

const bytes = (...parts: Array<string | number[]>) =>
  new Uint8Array(
    Buffer.concat(
      parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))),
    ),
  );
const utf16le = (text: string) => new Uint8Array(Buffer.from(text, "utf16le"));
const utf16be = (text: string) => new Uint8Array(Buffer.from(text, "utf16le").swap16());

describe("decodeText", () => {
  it("decodes UTF-8 without a declaration", () => {
    expect(decodeText(bytes("naïve café — 東京 😀"))).toBe("naïve café — 東京 😀");
  });

  it("lets a byte order mark win over everything, and removes it", () => {
    expect(
      decodeText(bytes([0xef, 0xbb, 0xbf], "é"), {
        contentType: "text/plain; charset=windows-1252",
      }),
    ).toBe("é");
    expect(decodeText(new Uint8Array([0xff, 0xfe, ...utf16le("héllo 東京")]))).toBe("héllo 東京");
    expect(decodeText(new Uint8Array([0xfe, 0xff, ...utf16be("héllo 東京")]))).toBe("héllo 東京");
  });

  it("honours the Content-Type charset", () => {
    // "café" in windows-1252 and in Shift_JIS-encoded Japanese
    expect(
      decodeText(bytes([0x63, 0x61, 0x66, 0xe9]), {
        contentType: "text/csv; charset=windows-1252",
      }),
    ).toBe("café");
    expect(
      decodeText(bytes([0x63, 0x61, 0x66, 0xe9]), {
        contentType: 'text/plain; charset="ISO-8859-1"',
      }),
    ).toBe("café");
    expect(
      decodeText(bytes([0x93, 0xfa, 0x96, 0x7b]), { contentType: "text/plain;charset=Shift_JIS" }),
    ).toBe("日本");
    expect(
      decodeText(bytes([0xd6, 0xd0, 0xce, 0xc4]), { contentType: "text/plain; charset=gbk" }),
    ).toBe("中文");
  });

  it("trusts a declared charset: invalid bytes become U+FFFD instead of failing", () => {
    expect(
      decodeText(bytes("ok ", [0xff], " ok"), { contentType: "text/plain; charset=utf-8" }),
    ).toBe("ok \ufffd ok");
  });

  it("names an unknown charset label", () => {
    const call = () => decodeText(bytes("x"), { contentType: "text/plain; charset=klingon-8" });
    expect(call).toThrow(ParseError);
    expect(call).toThrow(/charset "klingon-8", which is not a known text encoding/);
  });

  it("reads <meta charset> and http-equiv for HTML only", () => {
    const latin1Page = (meta: string) =>
      bytes(`<html><head>${meta}</head><body>caf`, [0xe9], "</body>");
    expect(decodeText(latin1Page('<meta charset="windows-1252">'), { kind: "html" })).toContain(
      "café",
    );
    expect(
      decodeText(
        latin1Page('<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">'),
        { kind: "html" },
      ),
    ).toContain("café");
    // the Content-Type header beats the meta tag, as in browsers
    expect(
      decodeText(bytes('<meta charset="windows-1252">caf', [0xc3, 0xa9]), {
        kind: "html",
        contentType: "text/html; charset=utf-8",
      }),
    ).toBe('<meta charset="windows-1252">café');
    // an unknown label in a meta tag is ignored (browsers do the same)
    expect(decodeText(bytes('<meta charset="bogus">é'), { kind: "html" })).toBe(
      '<meta charset="bogus">é',
    );
    // a meta tag in a CSV means nothing
    expect(decodeText(bytes('<meta charset="windows-1252">,', [0xc3, 0xa9]), { kind: "csv" })).toBe(
      '<meta charset="windows-1252">,é',
    );
  });

  it("falls back to windows-1252 for undeclared bytes that are not UTF-8", () => {
    // an Excel CSV saved on Windows: "Müller;Straße;€5"
    const excel = bytes("M", [0xfc], "ller;Stra", [0xdf], "e;", [0x80], "5");
    expect(decodeText(excel)).toBe("Müller;Straße;€5");
  });

  it("recognises UTF-16 without a byte order mark", () => {
    expect(decodeText(utf16le("name,city\nZoë,Zürich\n"))).toBe("name,city\nZoë,Zürich\n");
    expect(decodeText(utf16be("name,city\nZoë,Zürich\n"))).toBe("name,city\nZoë,Zürich\n");
  });

  it("removes NUL characters and refuses bytes that are mostly NULs", () => {
    expect(decodeText(bytes("a", [0], "b", [0], "c"))).toBe("abc");
    const binary = new Uint8Array(1000);
    binary.set([1, 2, 3, 4, 5, 6, 7], 100);
    expect(() => decodeText(binary)).toThrow(/binary, not text/);
  });

  it("decodes an empty input to an empty string", () => {
    expect(decodeText(new Uint8Array())).toBe("");
  });
});
