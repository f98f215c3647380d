import { UnsupportedMediaTypeError } from "../shared/errors.ts";
import { parseCsv } from "./csv-records.ts";
import { decodeText } from "./decode-text.ts";
import { htmlToText } from "./html-to-text.ts";
import { markdownToText } from "./markdown-to-text.ts";
import { ParseError } from "./parse-error.ts";
import { plainTextToText } from "./plain-text.ts";
import { binaryContentRefusal, detectSourceKind, type SourceKind } from "./source-kind.ts";

/**
 * What a file holds: prose to chunk and embed, a table whose records become rows, or pages
 * (a PDF) that only the ingest worker reads, page by page (`pdfPageTexts`).
 */
export type ParsedSource =
  | {
      kind: "text";
      sourceKind: ProseKind;
      title: string | null;
      text: string;
    }
  | { kind: "pages"; sourceKind: "pdf" }
  | {
      kind: "table";
      sourceKind: "csv";
      columns: string[];
      records: Record<string, string>[];
      /** records that had cells beyond the header, which were dropped */
      rowsWithExtraCells: number;
    };

export interface SourceDescription {
  contentType?: string | null;
  filename?: string | null;
}

/**
 * A whole file to text or a table: the kind from the Content-Type, the name and the first
 * bytes (source-kind.ts), then that kind's parser. A PDF is only recognised here: its parser
 * (unpdf, most of a bundle) belongs to the ingest worker, which keeps the api worker small
 * and reads any PDF in bounded page slices.
 *
 * Throws UnsupportedMediaTypeError (415) for a kind we do not parse, and ParseError (400)
 * for a file of a supported kind that holds nothing we can read: empty, binary where text
 * was promised, a CSV with an open quote. Large CSVs can be read in slices: `csvRecordsFrom`.
 */
export async function parseSource(
  bytes: Uint8Array,
  { contentType = null, filename = null }: SourceDescription = {},
): Promise<ParsedSource> {
  if (bytes.length === 0) throw new ParseError("the file is empty", { reason: "empty" });
  const sourceKind = requireSourceKind(bytes, { contentType, filename });
  switch (sourceKind) {
    case "pdf":
      return { kind: "pages", sourceKind };
    case "csv": {
      const table = parseCsv(decodeText(bytes, { contentType, kind: sourceKind }));
      if (table.columns.length === 0) {
        throw new ParseError("the CSV file has no header row (it holds only blank lines)", {
          reason: "empty",
        });
      }
      return { kind: "table", sourceKind, ...table };
    }
    default: {
      const decoded = decodeText(bytes, { contentType, kind: sourceKind });
      const { title, text } = proseToText(sourceKind, decoded);
      return { kind: "text", sourceKind, title, text: requireText(text) };
    }
  }
}

export type ProseKind = Exclude<SourceKind, "csv" | "pdf">;

/**
 * The text (and title) of a decoded HTML, Markdown or plain text file: the one rule for a
 * fetched file and an uploaded one the ingest worker reads whole. (Uploaded UTF-8 text and
 * Markdown are read in slices; the first slice drops front matter by `splitFrontMatter`, the
 * rule `markdownToText` applies here.)
 */
export function proseToText(
  kind: ProseKind,
  decoded: string,
): { title: string | null; text: string } {
  switch (kind) {
    case "html":
      return htmlToText(decoded);
    case "markdown":
      return markdownToText(decoded);
    case "text":
      return { title: null, text: plainTextToText(decoded) };
  }
}

/**
 * The kind `parseSource` would parse the bytes as (from their first KB, the Content-Type and
 * the name), or a 415: a type we do not parse, or binary bytes where text was promised.
 */
export function requireSourceKind(
  bytes: Uint8Array,
  { contentType = null, filename = null }: SourceDescription = {},
): SourceKind {
  const hints = { contentType, filename, head: bytes.subarray(0, 1024) };
  const kind = detectSourceKind(hints);
  if (kind) return kind;
  if (binaryContentRefusal(hints)) {
    throw new UnsupportedMediaTypeError(
      `the content is binary data, not text and not a PDF, although ${describe(contentType, filename)} says text; ` +
        "use a PDF, CSV, plain text, Markdown or HTML file",
    );
  }
  throw new UnsupportedMediaTypeError(
    `${describe(contentType, filename)} is not a supported file type; ` +
      "upload a PDF, CSV, plain text, Markdown or HTML file",
  );
}

function requireText(text: string): string {
  if (text.trim() === "")
    throw new ParseError("the file contains no readable text", { reason: "empty" });
  return text;
}

function describe(contentType: string | null, filename: string | null): string {
  const type = contentType ? contentType.split(";", 1)[0]!.trim() : "";
  if (type && type !== "application/octet-stream") return `the content type "${type}"`;
  if (filename) return `the file "${filename}"`;
  return "this file";
}
