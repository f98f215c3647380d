import { describe, expect, it } from "vitest";
import { isBinaryContent } from "../../src/parsing/binary-content.ts";
import { binaryContentRefusal, detectSourceKind } from "../../src/parsing/source-kind.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);
const TEXT = utf8("just some words\n");
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
const ZIP = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]);

describe("detectSourceKind", () => {
  it.each([
    ["text/html; charset=utf-8", "html"],
    ["application/xhtml+xml", "html"],
    ["TEXT/PLAIN", "text"],
    ["text/markdown", "markdown"],
    ["text/x-markdown", "markdown"],
    ["text/csv", "csv"],
    ["application/csv", "csv"],
    ["text/tab-separated-values", "csv"],
    ["application/pdf", "pdf"],
  ])("decides by a specific content type: %s → %s", (contentType, kind) => {
    expect(detectSourceKind({ contentType, filename: "whatever.bin", head: TEXT })).toBe(kind);
  });

  it.each([
    ["report.PDF", "pdf"],
    ["data.csv", "csv"],
    ["data.tsv", "csv"],
    ["notes.txt", "text"],
    ["README.md", "markdown"],
    ["post.markdown", "markdown"],
    ["index.html", "html"],
    ["page.htm", "html"],
    ["dir/sub/page.html?x=1#top", "html"],
  ])("falls back to the extension for octet-stream: %s → %s", (filename, kind) => {
    expect(
      detectSourceKind({ contentType: "application/octet-stream", filename, head: TEXT }),
    ).toBe(kind);
    expect(detectSourceKind({ contentType: null, filename, head: TEXT })).toBe(kind);
  });

  it("lets a known extension refine text/plain, and .csv refine Excel's type", () => {
    const head = TEXT;
    expect(detectSourceKind({ contentType: "text/plain", filename: "a.md", head })).toBe(
      "markdown",
    );
    expect(detectSourceKind({ contentType: "text/plain", filename: "a.csv", head })).toBe("csv");
    expect(detectSourceKind({ contentType: "text/plain", filename: "a.log", head })).toBe("text");
    expect(
      detectSourceKind({ contentType: "application/vnd.ms-excel", filename: "a.csv", head }),
    ).toBe("csv");
    expect(
      detectSourceKind({ contentType: "application/vnd.ms-excel", filename: "a.xls", head }),
    ).toBeNull();
  });

  it("sniffs PDF and HTML when nothing else says", () => {
    expect(detectSourceKind({ head: utf8("%PDF-1.7\n%âãÏÓ\n1 0 obj") })).toBe("pdf");
    expect(detectSourceKind({ head: utf8("\n\n<!DOCTYPE html><html><body>") })).toBe("html");
    expect(detectSourceKind({ head: utf8("\uFEFF<html lang=en>") })).toBe("html");
    expect(detectSourceKind({ head: utf8("<!-- generated --> <HTML>") })).toBe("html");
    expect(detectSourceKind({ head: utf8("<htmlfoo>") })).toBe("text");
    expect(detectSourceKind({ filename: "upload.bin", head: utf8("%PDF-1.4") })).toBe("pdf");
  });

  it("takes text-looking bytes as text only when there is no name to go on", () => {
    expect(detectSourceKind({ head: TEXT })).toBe("text");
    expect(detectSourceKind({ filename: "noext", head: TEXT })).toBe("text");
    expect(detectSourceKind({ filename: "report.docx", head: ZIP })).toBeNull();
    expect(detectSourceKind({ filename: "odd.xyz", head: TEXT })).toBeNull();
    expect(detectSourceKind({ head: ZIP })).toBeNull();
    expect(detectSourceKind({ head: new Uint8Array() })).toBeNull();
  });

  it("refuses other media types whatever the bytes", () => {
    expect(detectSourceKind({ contentType: "image/png", filename: "x.png", head: PNG })).toBeNull();
    expect(detectSourceKind({ contentType: "application/zip", head: ZIP })).toBeNull();
    expect(
      detectSourceKind({
        contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename: "a.docx",
        head: ZIP,
      }),
    ).toBeNull();
  });

  it("decides by the bytes first: a file that starts with %PDF- is a PDF whatever it is called", () => {
    const pdf = utf8("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n1 0 obj");
    for (const [contentType, filename] of [
      ["text/plain", "manual.txt"],
      [null, "manual.txt"],
      ["text/html", "page.html"],
      ["text/csv", "data.csv"],
      ["image/png", "x.png"],
      ["application/octet-stream", "report.docx"],
    ] as const) {
      expect(detectSourceKind({ contentType, filename, head: pdf })).toBe("pdf");
    }
    // Only at the very start: a text about PDFs that quotes the header stays text.
    const prose = utf8("Every PDF begins with %PDF-1.7 on its first line.\n");
    expect(detectSourceKind({ contentType: "text/markdown", filename: "a.md", head: prose })).toBe(
      "markdown",
    );
  });

  it("refuses binary bytes whatever name or text type promises text", () => {
    const random = new Uint8Array(512);
    let seed = 7;
    for (let i = 0; i < random.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      random[i] = seed >>> 24;
    }
    for (const head of [PNG, ZIP, random]) {
      expect(detectSourceKind({ contentType: "text/plain", filename: "a.txt", head })).toBeNull();
      expect(detectSourceKind({ contentType: null, filename: "a.txt", head })).toBeNull();
      expect(detectSourceKind({ contentType: "text/csv", filename: "a.csv", head })).toBeNull();
      expect(detectSourceKind({ contentType: "text/html", head })).toBeNull();
      expect(detectSourceKind({ contentType: "text/x-python", filename: "a.py", head })).toBeNull();
      expect(binaryContentRefusal({ contentType: "text/plain", filename: "a.txt", head })).toBe(
        "binary",
      );
    }
    // a type we do not parse is refused for its type, not its bytes
    expect(binaryContentRefusal({ contentType: "image/png", filename: "x.png", head: PNG })).toBe(
      null,
    );
    // A declared PDF is left to the PDF parser, which explains what is wrong with it.
    expect(detectSourceKind({ contentType: "application/pdf", head: random })).toBe("pdf");
  });

  it("keeps text that has a stray NUL or control byte, and UTF-16 text, as text", () => {
    const cases = [
      utf8("alpha\u0000 beta\n\ngamma"),
      utf8("text,n\nal\u0000pha,1\nbeta,2\u0000\n"),
      utf8(`${"a line of words\r\n".repeat(40)}\u001a`),
      utf8("\u001b[1mbold\u001b[0m and a form feed\f and a tab\t"),
      Uint8Array.from([0xff, 0xfe, 0x68, 0, 0x69, 0]),
      Uint8Array.from(Array.from("name,city\nZoe,Zurich\n", (c) => [c.charCodeAt(0), 0]).flat()),
    ];
    for (const head of cases) {
      expect(isBinaryContent(head)).toBe(false);
      expect(detectSourceKind({ contentType: "text/plain", filename: "a.txt", head })).toBe("text");
    }
  });

  it("reads other text/* types as text unless the extension says more", () => {
    expect(detectSourceKind({ contentType: "text/x-python", filename: "a.py", head: TEXT })).toBe(
      "text",
    );
    expect(detectSourceKind({ contentType: "text/x-whatever", filename: "a.md", head: TEXT })).toBe(
      "markdown",
    );
  });
});
