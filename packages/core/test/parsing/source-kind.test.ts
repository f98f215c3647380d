import { describe, expect, it } from "vitest";
import { detectSourceKind } from "../../src/parsing/source-kind.ts";

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
    // Trust the declared type: a PNG label on PDF bytes is not parsed as a PDF.
    expect(detectSourceKind({ contentType: "image/png", head: utf8("%PDF-1.4") })).toBeNull();
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
