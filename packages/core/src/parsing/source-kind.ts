import { isBinaryContent, startsWithPdfMagic } from "./binary-content.ts";

/** The kinds of file the parsers understand. */
export type SourceKind = "pdf" | "csv" | "text" | "markdown" | "html";

export const SOURCE_KINDS: readonly SourceKind[] = ["pdf", "csv", "text", "markdown", "html"];

export interface SourceKindHints {
  /** the Content-Type as sent (parameters such as `; charset=` are ignored here) */
  contentType?: string | null;
  filename?: string | null;
  /** the first bytes of the file; 1 KB is plenty */
  head: Uint8Array;
}

const BY_CONTENT_TYPE: Readonly<Record<string, SourceKind>> = {
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/csv": "csv",
  "text/x-csv": "csv",
  "application/csv": "csv",
  "application/x-csv": "csv",
  "text/tab-separated-values": "csv",
  "application/pdf": "pdf",
  "application/x-pdf": "pdf",
  "text/plain": "text",
};

const BY_EXTENSION: Readonly<Record<string, SourceKind>> = {
  pdf: "pdf",
  csv: "csv",
  tsv: "csv",
  txt: "text",
  text: "text",
  md: "markdown",
  markdown: "markdown",
  html: "html",
  htm: "html",
  xhtml: "html",
};

/** Types that say nothing about the content: decide by the name, then by the bytes. */
const GENERIC_TYPES = new Set(["", "application/octet-stream", "binary/octet-stream"]);

/**
 * Types clients send for files that are more specific by name: browsers upload `.md` and
 * `.csv` as `text/plain`, and Windows browsers upload `.csv` as `application/vnd.ms-excel`.
 * For these the extension wins when it names a kind; otherwise the type's own kind is used.
 */
const WEAK_TYPES: Readonly<Record<string, SourceKind | null>> = {
  "text/plain": "text",
  "application/vnd.ms-excel": null,
};

/**
 * What kind of file this is, or null when it is none we parse (images, archives, Office
 * documents…). The bytes come first: a file that starts with `%PDF-` is a PDF whatever its
 * name or type, and binary bytes (`isBinaryContent`) are never the text a name or type may
 * promise (a PDF or a zip renamed `.txt`). Then a specific Content-Type decides; a generic or
 * missing one defers to the file extension, then to the bytes: `%PDF-` in the first KB and
 * the start of an HTML document are recognised, and bytes that look like text are text only
 * when nothing else was said.
 */
export function detectSourceKind(hints: SourceKindHints): SourceKind | null {
  if (startsWithPdfMagic(hints.head)) return "pdf";
  const kind = declaredSourceKind(hints);
  // A file declared PDF is left to the PDF parser, which says what is wrong with it.
  if (kind === null || kind === "pdf") return kind;
  return isBinaryContent(hints.head) ? null : kind;
}

/**
 * Why `detectSourceKind` refused a file whose name or type promised a kind we parse: its
 * bytes are binary. Null when it was refused for its type alone (an image, a .docx).
 */
export function binaryContentRefusal(hints: SourceKindHints): "binary" | null {
  if (startsWithPdfMagic(hints.head) || !isBinaryContent(hints.head)) return null;
  const kind = declaredSourceKind(hints);
  return kind !== null && kind !== "pdf" ? "binary" : null;
}

/** The kind by Content-Type, file extension and sniffing, before the bytes are checked. */
function declaredSourceKind({ contentType, filename, head }: SourceKindHints): SourceKind | null {
  const type = mediaType(contentType);
  const extension = extensionOf(filename);
  const byExtension = extension === null ? undefined : BY_EXTENSION[extension];

  if (type in WEAK_TYPES) return byExtension ?? WEAK_TYPES[type] ?? null;
  const byType = BY_CONTENT_TYPE[type];
  if (byType) return byType;
  if (!GENERIC_TYPES.has(type)) {
    // Any other text/* (source code, logs) is still text; everything else is unsupported.
    return type.startsWith("text/") ? (byExtension ?? "text") : null;
  }

  if (byExtension) return byExtension;
  const sniffed = sniff(head);
  if (sniffed) return sniffed;
  // Without a name to go on, text-looking bytes are taken as text; a name with an
  // extension we do not know (report.docx) means a format we do not parse.
  return extension === null && looksLikeText(head) ? "text" : null;
}

function mediaType(contentType: string | null | undefined): string {
  if (!contentType) return "";
  const semicolon = contentType.indexOf(";");
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

function extensionOf(filename: string | null | undefined): string | null {
  if (!filename) return null;
  // A URL-ish name may carry a query or fragment; a path may carry directories.
  const name = filename.split(/[?#]/, 1)[0]!.split(/[/\\]/).pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot <= 0 || dot === name.length - 1 ? null : name.slice(dot + 1).toLowerCase();
}

/** Tags that start an HTML document (a subset of the WHATWG MIME sniffing patterns). */
const HTML_STARTS = ["<!doctype html", "<html", "<head", "<body"];
const LEADING_BOM_AND_SPACE = /^(?:\xef\xbb\xbf)?[\t\n\f\r ]*/;

function sniff(head: Uint8Array): SourceKind | null {
  // The header may follow some junk; pdf.js itself looks within the first KB.
  const ascii = latin1(head.subarray(0, 1024));
  if (ascii.includes("%PDF-")) return "pdf";
  let start = ascii.replace(LEADING_BOM_AND_SPACE, "");
  // A generator's banner comment may come before the markup.
  while (start.startsWith("<!--")) {
    const end = start.indexOf("-->");
    if (end === -1) return null;
    start = start.slice(end + 3).replace(LEADING_BOM_AND_SPACE, "");
  }
  start = start.toLowerCase();
  for (const tag of HTML_STARTS) {
    // "<html>" or "<html lang=…", not "<htmlfoo"
    if (start.startsWith(tag) && /[\t\n\f\r />]/.test(start.charAt(tag.length))) return "html";
  }
  return null;
}

/** No NUL and few control bytes: the usual test for "is this a text file". */
function looksLikeText(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  // UTF-16 with a byte order mark is text even though half its bytes are zero.
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return true;
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return false;
    if (
      byte < 0x20 &&
      byte !== 0x09 &&
      byte !== 0x0a &&
      byte !== 0x0c &&
      byte !== 0x0d &&
      byte !== 0x1b
    ) {
      control++;
    }
  }
  return control / head.length < 0.05;
}

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}
