import Papa from "papaparse";
import { ParseError, withoutNul } from "../parsing/index.ts";

export interface CsvSlice {
  /** header names: read from the first slice, carried by the cursor afterwards */
  columns: string[];
  delimiter: string;
  records: Record<string, string>[];
  /** byte offset just after the last complete record in the window */
  end: number;
}

/**
 * Parses the complete records of a UTF-8 CSV window that starts at a record boundary.
 * A record may span lines inside quotes, so the window is cut at the last newline that lies
 * outside quotes (RFC 4180: `""` toggles twice, so counting quotes is exact). Returns null
 * when the window holds no complete record (the caller widens it).
 */
export function parseCsvWindow(
  bytes: Uint8Array,
  offset: number,
  atEnd: boolean,
  columns: string[] | undefined,
  delimiter: string | undefined,
): CsvSlice | null {
  const cut = atEnd ? bytes.length : lastRecordEnd(bytes);
  if (cut <= 0) {
    return atEnd
      ? { columns: columns ?? [], delimiter: delimiter ?? ",", records: [], end: offset }
      : null;
  }
  let text: string;
  try {
    text = withoutNul(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes.subarray(0, cut)),
    );
  } catch {
    throw new ParseError("the CSV is not valid UTF-8 after its first part; save it as UTF-8");
  }
  if (offset === 0) text = text.replace(/^\uFEFF/, "");
  // Delimiter sniffing (comma, semicolon, tab, pipe) happens once, on the slice with the header.
  const parsed = Papa.parse<string[]>(text, {
    skipEmptyLines: "greedy",
    delimiter: delimiter ?? "",
  });
  const rows = parsed.data;
  let header = columns;
  if (!header) {
    const first = rows.shift();
    if (!first) throw new ParseError("the CSV is empty: it has no header row");
    header = uniqueNames(first);
  }
  const records = rows.map((cells) => {
    const record: Record<string, string> = {};
    header.forEach((name, i) => {
      record[name] = cells[i] ?? "";
    });
    return record;
  });
  return { columns: header, delimiter: parsed.meta.delimiter, records, end: offset + cut };
}

/** Index just past the last LF outside quotes, or 0 when there is none. */
function lastRecordEnd(bytes: Uint8Array): number {
  let inQuotes = false;
  let last = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x22) inQuotes = !inQuotes;
    else if (b === 0x0a && !inQuotes) last = i + 1;
  }
  return last;
}

/** Empty and repeated header names get positional names, so no cell is lost. */
export function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((raw, i) => {
    const base = raw.trim() === "" ? `column_${i + 1}` : raw.trim();
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}_${count + 1}`;
  });
}
