import { describe, expect, it } from "vitest";
import {
  attachmentDisposition,
  parseContentDisposition,
} from "../src/documents/content-disposition.ts";

const formData = { backslashes: "form-data" } as const;

describe("one Content-Disposition parser for fetched sources and upload parts", () => {
  it("reads the type and parameters, the first occurrence winning", () => {
    const parsed = parseContentDisposition(
      'Attachment; Name="a; b=c"; filename=plain.txt; name=second',
    );
    expect(parsed.type).toBe("attachment");
    expect([...parsed.parameters]).toEqual([
      ["name", "a; b=c"],
      ["filename", "plain.txt"],
    ]);
    expect(parsed.filename).toBe("plain.txt");
  });

  it('unescapes every quoted-pair in a response header (RFC 9110), only \\" and \\\\ in form-data', () => {
    const header = 'form-data; name="f"; filename="C:\\dir\\a \\"b\\" \\\\ c.txt"';
    // A server's quoted-string: `\d` is `d`.
    expect(parseContentDisposition(header).filename).toBe('C:dira "b" \\ c.txt');
    // A form encoder's: backslashes are literal unless they escape a quote or a backslash.
    expect(parseContentDisposition(header, formData).filename).toBe('C:\\dir\\a "b" \\ c.txt');
  });

  it.each([
    // RFC 6266 §4.3: filename* wins wherever it stands
    [`attachment; filename="EUR.csv"; filename*=UTF-8''%E2%82%AC.csv`, "€.csv"],
    [`attachment; filename*=utf-8'en'%E2%82%AC.csv; filename="EUR.csv"`, "€.csv"],
    [`attachment; filename*=ISO-8859-1''caf%E9.txt`, "café.txt"],
    // undecodable filename* falls back to filename: bad escape, not UTF-8, raw non-ASCII,
    // a space, an unknown charset, no charset quote marks
    [`attachment; filename*=UTF-8''%zz; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=UTF-8''%C3; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=UTF-8''café.txt; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=UTF-8''a b.txt; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=koi8-r''%C1.txt; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=%E2%82%AC.txt; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=UTF-8''%FF`, null],
    ["inline", null],
  ])("%s → %j, in both modes", (header, expected) => {
    expect(parseContentDisposition(header).filename).toBe(expected);
    expect(parseContentDisposition(header, formData).filename).toBe(expected);
  });

  it("reads back every name a download header is written with", () => {
    for (const name of ["résumé.pdf", "报告 (v2).md", "it's 100% done.txt", "emoji 🚀.csv"]) {
      expect(parseContentDisposition(attachmentDisposition(name)).filename).toBe(name);
    }
  });
});
