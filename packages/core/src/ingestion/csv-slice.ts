import {
  csvNewline,
  readCsvLayout,
  readCsvRecords,
  unclosedQuote,
} from "../parsing/csv-records.ts";
import { ParseError } from "../parsing/parse-error.ts";

export interface CsvSlice {
  /** header names: read from the first slice, carried by the cursor afterwards */
  columns: string[];
  delimiter: string;
  records: Record<string, string>[];
  /** byte offset just after the last complete record in the window */
  end: number;
}

/**
 * The complete records of a window of an uploaded UTF-8 CSV that starts at a record
 * boundary (`offset`), read with the same reader and rules as a whole file
 * (`parsing/csv-records.ts`). The first window reads the header and the delimiter; later
 * ones get them from the cursor. A window that is not the file's end may cut a record
 * anywhere, inside a quoted line break or a UTF-8 sequence: that record is left for the
 * next window. Returns null when the window holds no complete record (the caller widens it).
 */
export function parseCsvWindow(
  bytes: Uint8Array,
  offset: number,
  atEnd: boolean,
  columns: string[] | undefined,
  delimiter: string | undefined,
): CsvSlice | null {
  let text: string;
  try {
    // `stream`: a character cut at the window's end waits for the next window.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes, {
      stream: !atEnd,
    });
  } catch {
    throw new ParseError("the CSV is not valid UTF-8 after its first part; save it as UTF-8");
  }
  const layout =
    columns && delimiter !== undefined
      ? { columns, delimiter, newline: csvNewline(text), dataStart: 0 }
      : readCsvLayout(text, { complete: atEnd });
  if (layout === "unfinished") return null;
  if (layout === "empty") {
    if (text !== "") throw new ParseError("the CSV is empty: it has no header row");
    return { columns: [], delimiter: ",", records: [], end: offset };
  }
  const read = readCsvRecords(text, layout.dataStart, layout, {
    maxRecords: Number.POSITIVE_INFINITY,
    complete: atEnd,
  });
  if (read.unclosedQuoteAt !== null) {
    const at = offset + utf8Length(text, read.unclosedQuoteAt);
    throw unclosedQuote(`the record starting at byte ${at}`);
  }
  if (!atEnd && read.records.length === 0) return null;
  return {
    columns: layout.columns,
    delimiter: layout.delimiter,
    records: read.records,
    end: atEnd ? offset + bytes.length : offset + utf8Length(text, read.end),
  };
}

/** UTF-8 bytes of `text.slice(0, end)`, without encoding it. */
function utf8Length(text: string, end: number): number {
  let bytes = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < end) {
      bytes += 4; // a surrogate pair: one 4-byte character
      i++;
    } else bytes += 3;
  }
  return bytes;
}
