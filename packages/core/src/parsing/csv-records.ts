import Papa from "papaparse";
import { ParseError } from "./parse-error.ts";
import { withoutNul } from "./without-nul.ts";

/**
 * The one CSV reader, on papaparse: whole files (`parseCsv`, URLs and E5 content), slices of
 * a text (`csvRecordsFrom`) and byte windows of an upload (`ingestion/csv-slice.ts`) all read
 * records through `readCsvLayout` and `readCsvRecords`, so they agree. The rules:
 *
 * - The first non-blank row is the header. Names are trimmed; an empty name becomes
 *   `column_N` (N its 1-based position) and a repeated one `name_2`, `name_3`…, so every
 *   column has a distinct, non-empty name.
 * - The delimiter is detected from the first rows among comma, semicolon, tab and pipe
 *   (comma when nothing fits, as for a one-column file); Excel's `sep=;` first line is
 *   honoured. Quoted fields may hold delimiters, quotes (`""`) and line breaks.
 * - Rows end with LF or CRLF, mixed freely (CR alone in a file without LF). Line breaks
 *   inside quoted values are kept as written: an upload's and a URL's rows keep the same
 *   text (ingest slices always kept a value's CRLF; whole files used to turn it into LF).
 * - A row with fewer cells than the header gets "" for the missing ones. Cells beyond the
 *   header are dropped and the row counted in `rowsWithExtraCells`: they have no column to
 *   go under, and they are usually a stray delimiter (an unquoted "Smith, John"), which no
 *   name could make right. A caller can warn with the count.
 * - Blank rows (nothing but delimiters and spaces) are skipped. A leading BOM is ignored.
 *   NUL characters are removed from cells (Postgres cannot store them).
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

/** How a CSV is laid out: read once from its top, then carried to every later slice. */
export interface CsvLayout {
  columns: string[];
  delimiter: string;
  newline: "\n" | "\r";
  /** offset of the first data record */
  dataStart: number;
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
  const layout = readCsvLayout(text, { complete: true });
  if (layout === "empty" || layout === "unfinished") {
    return { columns: [], records: [], rowsWithExtraCells: 0, nextOffset: text.length, done: true };
  }
  const { columns, dataStart } = layout;
  if (startOffset !== 0 && (startOffset < dataStart || startOffset > text.length)) {
    throw new RangeError(`startOffset ${startOffset} is not a record boundary of this CSV`);
  }
  const from = startOffset === 0 ? dataStart : startOffset;
  const read = readCsvRecords(text, from, layout, { maxRecords, complete: true });
  if (read.unclosedQuoteAt !== null) {
    throw unclosedQuote(`the record starting on line ${lineOf(text, read.unclosedQuoteAt)}`);
  }
  // When the last slice stops exactly at the last record, only blank lines can remain.
  const done = read.records.length < maxRecords || isBlank(text, read.end);
  return {
    columns,
    records: read.records,
    rowsWithExtraCells: read.rowsWithExtraCells,
    nextOffset: done ? text.length : read.end,
    done,
  };
}

export interface CsvRecordsRead {
  records: Record<string, string>[];
  rowsWithExtraCells: number;
  /** offset just past the last record returned (and its line break) */
  end: number;
  /** where a record with a quote that never closes starts; null when there is none */
  unclosedQuoteAt: number | null;
}

/**
 * Records of `text` from `from` (a record boundary) under a known layout. With
 * `complete: false` the text is a window cut anywhere in a longer file: the record that
 * reaches its end may be cut short, so it is left for the next window (papaparse ends a
 * record only at a line break outside quotes, so every earlier record is whole).
 */
export function readCsvRecords(
  text: string,
  from: number,
  { columns, delimiter, newline }: Omit<CsvLayout, "dataStart">,
  { maxRecords, complete }: { maxRecords: number; complete: boolean },
): CsvRecordsRead {
  const records: Record<string, string>[] = [];
  const rest = text.length - from;
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
      if (!complete && row.meta.cursor >= rest) {
        parser.abort();
        return;
      }
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
  return { records, rowsWithExtraCells, end: from + consumed, unclosedQuoteAt };
}

export function unclosedQuote(where: string): ParseError {
  return new ParseError(
    `the CSV has a quoted field that is never closed, in ${where}; ` +
      'close the quote, or double any quote inside a quoted value ("")',
    { reason: "malformed_csv" },
  );
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

/**
 * Rows may end in CRLF, LF or CR: parsed as LF-terminated, a CR before the LF is removed
 * from the last cell (cleanCell). Only a text with no LF at all is read CR-terminated.
 */
export function csvNewline(text: string, start = 0): "\n" | "\r" {
  const sample = text.slice(start, start + SNIFF_LENGTH);
  return sample.includes("\n") || !sample.includes("\r") ? "\n" : "\r";
}

/**
 * The header, delimiter and line ending from the top of a CSV. "empty": nothing but blank
 * lines; "unfinished" (only with `complete: false`): the header row may go on past the end
 * of this window.
 */
export function readCsvLayout(
  text: string,
  { complete }: { complete: boolean },
): CsvLayout | "empty" | "unfinished" {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const newline = csvNewline(text, start);
  const sample = text.slice(start, start + SNIFF_LENGTH);

  let delimiter: string | undefined;
  const hint = /^sep=(.)[ \t]*(?:\r\n|\n|\r|$)/i.exec(sample);
  if (hint && (complete || hint[0].length < sample.length)) {
    delimiter = hint[1]!;
    start += hint[0].length;
  } else {
    const guess = Papa.parse<string[]>(sample, {
      newline,
      delimitersToGuess: DELIMITERS,
      skipEmptyLines: "greedy",
      preview: 10,
    });
    delimiter = DELIMITERS.includes(guess.meta.delimiter) ? guess.meta.delimiter : ",";
  }

  const rest = text.length - start;
  let cells = null as string[] | null;
  let dataStart = text.length;
  let unclosed = false as boolean;
  let unfinished = false as boolean;
  Papa.parse<string[]>(text.slice(start), {
    delimiter,
    newline,
    skipEmptyLines: "greedy",
    chunkSize: CHUNK_SIZE,
    step: (row, parser) => {
      unfinished = !complete && row.meta.cursor >= rest;
      unclosed = row.errors.some((e) => e.code === "MissingQuotes");
      cells = row.data;
      dataStart = start + row.meta.cursor;
      parser.abort();
    },
  });
  if (unfinished) return "unfinished";
  if (unclosed) {
    throw new ParseError(
      "the CSV header row has a quoted field that is never closed; close the quote",
      { reason: "malformed_csv" },
    );
  }
  if (cells === null) return complete ? "empty" : "unfinished";
  return { columns: uniqueColumnNames(cells), delimiter, newline, dataStart };
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

/** A cell without NULs, and without the CR of a CRLF row ending when it is the last one. */
function cleanCell(cell: string | undefined, index: number, row: readonly string[]): string {
  if (cell === undefined) return "";
  const value = withoutNul(cell);
  return index === row.length - 1 && value.endsWith("\r") ? value.slice(0, -1) : value;
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
