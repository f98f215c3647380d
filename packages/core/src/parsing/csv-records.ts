import Papa from "papaparse";
import { ParseError } from "./parse-error.ts";

/**
 * CSV to records, keyed by the header row. The rules:
 *
 * - The first non-blank row is the header. Names are trimmed; an empty name becomes
 *   `column_N` (N its 1-based position) and a repeated one `name_2`, `name_3`…, so every
 *   column has a distinct, non-empty name.
 * - The delimiter is detected from the first rows among comma, semicolon, tab and pipe
 *   (comma when nothing fits, as for a one-column file); Excel's `sep=;` first line is
 *   honoured. Quoted fields may hold delimiters, quotes (`""`) and line breaks.
 * - Rows end with LF, CRLF or CR, mixed freely; line breaks inside values become LF.
 * - A row with fewer cells than the header gets "" for the missing ones. Cells beyond the
 *   header are dropped and the row counted in `rowsWithExtraCells`: they have no column to
 *   go under, and they are usually a stray delimiter (an unquoted "Smith, John"), which no
 *   name could make right. A caller can warn with the count.
 * - Blank rows (nothing but delimiters and spaces) are skipped. A leading BOM is ignored.
 * - A quoted field that never closes is a ParseError naming its line: it would otherwise
 *   swallow the rest of the file into one cell.
 */
export interface CsvTable {
  columns: string[];
  records: Record<string, string>[];
  rowsWithExtraCells: number;
}

export interface CsvSlice extends CsvTable {
  /**
   * Where the next slice starts: a character offset into the same `text`, just past the
   * last record returned (and its line break).
   */
  nextOffset: number;
  /** no records remain after `nextOffset` */
  done: boolean;
}

export function parseCsv(text: string): CsvTable {
  const { columns, records, rowsWithExtraCells } = csvRecordsFrom(text, {
    maxRecords: Number.POSITIVE_INFINITY,
  });
  return { columns, records, rowsWithExtraCells };
}

/**
 * Up to `maxRecords` records starting at `startOffset`, for work done in bounded slices
 * (one Queue message each). Pass 0 to start after the header, then each slice's
 * `nextOffset`. The header and the delimiter are read again from the top of `text` every
 * time, so a slice needs no state but the offset and always agrees with a whole-file parse.
 *
 * Offsets are only ever record boundaries found by the parser, so a resumed parse never
 * starts inside a quoted, multi-line value. Any other offset is a caller's bug (RangeError).
 * The work is proportional to the records returned, not to the rest of the file.
 */
export function csvRecordsFrom(
  text: string,
  { startOffset = 0, maxRecords }: { startOffset?: number; maxRecords: number },
): CsvSlice {
  if (!(maxRecords >= 1)) throw new RangeError("maxRecords must be at least 1");
  const layout = readLayout(text);
  if (layout === null) {
    return { columns: [], records: [], rowsWithExtraCells: 0, nextOffset: text.length, done: true };
  }
  const { columns, delimiter, newline, dataStart } = layout;
  if (startOffset !== 0 && (startOffset < dataStart || startOffset > text.length)) {
    throw new RangeError(`startOffset ${startOffset} is not a record boundary of this CSV`);
  }
  const from = startOffset === 0 ? dataStart : startOffset;

  const records: Record<string, string>[] = [];
  let rowsWithExtraCells = 0;
  let consumed = 0;
  // (`as`: assigned in the callback, which TypeScript's narrowing cannot see)
  let unclosedQuoteAt = null as number | null;
  Papa.parse<string[]>(text.slice(from), {
    delimiter,
    newline,
    skipEmptyLines: "greedy",
    chunkSize: CHUNK_SIZE,
    step: (row, parser) => {
      if (row.errors.some((e) => e.code === "MissingQuotes")) {
        unclosedQuoteAt = from + consumed;
        parser.abort();
        return;
      }
      const cells = row.data;
      if (cells.length > columns.length) rowsWithExtraCells++;
      records.push(
        Object.fromEntries(columns.map((column, k) => [column, cleanCell(cells[k], k, cells)])),
      );
      consumed = row.meta.cursor;
      if (records.length >= maxRecords) parser.abort();
    },
  });
  if (unclosedQuoteAt !== null) {
    throw new ParseError(
      `the CSV has a quoted field that is never closed, in the record starting on line ${lineOf(text, unclosedQuoteAt)}; ` +
        'close the quote, or double any quote inside a quoted value ("")',
      { reason: "malformed_csv" },
    );
  }
  const nextOffset = from + consumed;
  // When the last slice stops exactly at the last record, only blank lines can remain.
  const done = records.length < maxRecords || isBlank(text, nextOffset);
  return {
    columns,
    records,
    rowsWithExtraCells,
    nextOffset: done ? text.length : nextOffset,
    done,
  };
}

interface CsvLayout {
  columns: string[];
  delimiter: string;
  newline: "\n" | "\r";
  /** offset of the first data record */
  dataStart: number;
}

const DELIMITERS = [",", ";", "\t", "|"];
/**
 * Chunks keep a slice's work proportional to what it reads: without them papaparse splits
 * the whole remaining text into lines before returning the first row. Large chunks keep
 * the cost of a quote left open (each chunk re-reads the unfinished record) in check.
 */
const CHUNK_SIZE = 1024 * 1024;
/** Enough of the file for papaparse's delimiter guess (it looks at 10 rows). */
const SNIFF_LENGTH = 64 * 1024;

function readLayout(text: string): CsvLayout | null {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Rows may end in CRLF, LF or CR: parsed as LF-terminated, a CR before the LF is removed
  // from the last cell (cleanCell). Only a file with no LF at all is read CR-terminated.
  const sample = text.slice(start, start + SNIFF_LENGTH);
  const newline = sample.includes("\n") || !sample.includes("\r") ? "\n" : "\r";

  let delimiter: string | undefined;
  const hint = /^sep=(.)[ \t]*(?:\r\n|\n|\r|$)/i.exec(sample);
  if (hint) {
    delimiter = hint[1]!;
    start += hint[0].length;
  } else {
    const guess = Papa.parse<string[]>(text.slice(start, start + SNIFF_LENGTH), {
      newline,
      delimitersToGuess: DELIMITERS,
      skipEmptyLines: "greedy",
      preview: 10,
    });
    delimiter = DELIMITERS.includes(guess.meta.delimiter) ? guess.meta.delimiter : ",";
  }

  let header = null as string[] | null;
  let dataStart = text.length;
  let unclosed = false as boolean;
  Papa.parse<string[]>(text.slice(start), {
    delimiter,
    newline,
    skipEmptyLines: "greedy",
    chunkSize: CHUNK_SIZE,
    step: (row, parser) => {
      unclosed = row.errors.some((e) => e.code === "MissingQuotes");
      header = row.data;
      dataStart = start + row.meta.cursor;
      parser.abort();
    },
  });
  if (unclosed) {
    throw new ParseError(
      "the CSV header row has a quoted field that is never closed; close the quote",
      { reason: "malformed_csv" },
    );
  }
  if (header === null) return null;
  return { columns: uniqueColumnNames(header), delimiter, newline, dataStart };
}

/** Trimmed, non-empty and distinct: `column_N` for blanks, `name_2`… for repeats. */
export function uniqueColumnNames(header: readonly string[]): string[] {
  const cells = header.map((cell, k) => cleanCell(cell, k, header).trim());
  const given = new Set(cells.filter((c) => c !== ""));
  const used = new Set<string>();
  return cells.map((cell, k) => {
    let name = cell;
    if (name === "" || used.has(name)) {
      const base = name === "" ? `column_${k + 1}` : name;
      name = base;
      // A generated name must not take the name of a column given later in the header.
      for (let n = 2; used.has(name) || (name !== cell && given.has(name)); n++) {
        name = `${base}_${n}`;
      }
    }
    used.add(name);
    return name;
  });
}

/** A cell with the CR of a CRLF row ending removed and line breaks inside it as LF. */
function cleanCell(cell: string | undefined, index: number, row: readonly string[]): string {
  if (cell === undefined) return "";
  let value = cell;
  if (index === row.length - 1 && value.endsWith("\r")) value = value.slice(0, -1);
  return value.includes("\r") ? value.replace(/\r\n?/g, "\n") : value;
}

function isBlank(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 0x0a) line++;
  // The record starts after any blank lines that were skipped before it.
  for (let i = offset; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) line++;
    else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
  }
  return line;
}
