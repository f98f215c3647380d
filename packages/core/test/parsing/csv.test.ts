import { describe, expect, it } from "vitest";
import { parseCsvWindow } from "../../src/ingestion/csv-slice.ts";
import { csvRecordsFrom, parseCsv } from "../../src/parsing/csv-records.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * Reads a CSV as the ingest worker does (ingest-slice.ts `csvSlice`): windows of `window`
 * bytes from the cursor, doubled while a window holds no complete record, the header and
 * delimiter carried from the first slice.
 */
function readInWindows(text: string, window: number) {
  const bytes = utf8(text);
  let position = 0;
  let cursor: { columns: string[]; delimiter: string } | undefined;
  const records: Record<string, string>[] = [];
  const ends: number[] = [];
  for (let slices = 0; slices < 10_000; slices++) {
    let size = window;
    for (;;) {
      const part = bytes.subarray(position, position + size);
      const atEnd = position + part.length >= bytes.length;
      const parsed = parseCsvWindow(part, position, atEnd, cursor?.columns, cursor?.delimiter);
      if (parsed) {
        records.push(...parsed.records);
        ends.push(parsed.end);
        cursor = { columns: parsed.columns, delimiter: parsed.delimiter };
        position = parsed.end;
        if (atEnd) return { columns: parsed.columns, records, ends };
        break;
      }
      size *= 2;
    }
  }
  throw new Error("too many slices");
}

const SAMPLE =
  '\uFEFFtext,year,note\r\n"Tides, mostly",2020,"a ""quoted"" word"\r\n' +
  '"a value\r\nover two lines",2021,€ and 日本\r\n\r\nplain,2022,last\r\n';

describe("one CSV reader for uploads (byte windows) and whole files", () => {
  it("reads the same records in windows of any size as in one piece", () => {
    const whole = parseCsv(SAMPLE);
    expect(whole.columns).toEqual(["text", "year", "note"]);
    expect(whole.records).toEqual([
      { text: "Tides, mostly", year: "2020", note: 'a "quoted" word' },
      { text: "a value\r\nover two lines", year: "2021", note: "€ and 日本" },
      { text: "plain", year: "2022", note: "last" },
    ]);
    for (let window = 1; window <= utf8(SAMPLE).length + 1; window++) {
      const windowed = readInWindows(SAMPLE, window);
      expect(windowed.columns, `window ${window}`).toEqual(whole.columns);
      expect(windowed.records, `window ${window}`).toEqual(whole.records);
      expect(windowed.ends.at(-1)).toBe(utf8(SAMPLE).length);
    }
  });

  it("never splits a quoted line break across a slice boundary", () => {
    const text = 'text,n\n"first\nsecond\nthird",1\nnext,2\n';
    const bytes = utf8(text);
    const afterHeader = "text,n\n".length;
    // A window that ends inside the quoted value, right after a line break in it.
    const cut = text.indexOf("second");
    const first = parseCsvWindow(bytes.subarray(0, cut), 0, false, undefined, undefined);
    expect(first).toBeNull();
    const wider = parseCsvWindow(bytes.subarray(0, cut + 20), 0, false, undefined, undefined);
    expect(wider?.records).toEqual([{ text: "first\nsecond\nthird", n: "1" }]);
    expect(wider?.end).toBe(text.indexOf("next"));
    // The next slice resumes at that boundary with the carried header.
    const rest = parseCsvWindow(bytes.subarray(wider!.end), wider!.end, true, ["text", "n"], ",");
    expect(rest).toEqual({
      columns: ["text", "n"],
      delimiter: ",",
      records: [{ text: "next", n: "2" }],
      end: bytes.length,
    });
    expect(afterHeader).toBeLessThan(cut);
  });

  it("names blank and repeated headers the same way on both paths", () => {
    const text = "a,,a,a_2, b ,\r\n1,2,3,4,5,6\r\n";
    const expected = ["a", "column_2", "a_3", "a_2", "b", "column_6"];
    expect(parseCsv(text).columns).toEqual(expected);
    const window = parseCsvWindow(utf8(text), 0, true, undefined, undefined);
    expect(window?.columns).toEqual(expected);
    expect(window?.records).toEqual([
      { a: "1", column_2: "2", a_3: "3", a_2: "4", b: "5", column_6: "6" },
    ]);
  });

  it("drops a BOM, reads CRLF, CR-only and `sep=` files alike on both paths", () => {
    for (const text of [
      "\uFEFFname;city\r\nAda;London\r\n",
      "name;city\rAda;London\r",
      "sep=;\nname;city\nAda;London\n",
    ]) {
      const expected = { columns: ["name", "city"], records: [{ name: "Ada", city: "London" }] };
      expect(parseCsv(text)).toMatchObject(expected);
      expect(parseCsvWindow(utf8(text), 0, true, undefined, undefined)).toMatchObject({
        ...expected,
        delimiter: ";",
      });
      expect(readInWindows(text, 3)).toMatchObject(expected);
    }
  });

  it("waits for a character cut by the window instead of failing on it", () => {
    const text = "text\n€uro\n日本\n";
    const bytes = utf8(text);
    const cut = utf8("text\n€uro\n日").length + 1; // inside 本
    const parsed = parseCsvWindow(bytes.subarray(0, cut), 0, false, undefined, undefined);
    expect(parsed?.records).toEqual([{ text: "€uro" }]);
    expect(parsed?.end).toBe(utf8("text\n€uro\n").length);
    expect(() =>
      parseCsvWindow(Uint8Array.of(0x74, 0x0a, 0xff, 0x0a), 0, true, undefined, undefined),
    ).toThrow(/not valid UTF-8/);
  });

  it("refuses a quote that never closes at the end of the file, on both paths", () => {
    const text = 'text,n\nok,1\n"never closed,2\nmore,3\n';
    expect(() => parseCsv(text)).toThrow(/never closed, in the record starting on line 3/);
    expect(() => parseCsvWindow(utf8(text), 0, true, undefined, undefined)).toThrow(
      /never closed, in the record starting at byte 12/,
    );
    // Not at the end: the open quote may close in the next window.
    expect(parseCsvWindow(utf8(text).subarray(12), 12, false, ["text", "n"], ",")).toBeNull();
  });

  it("keeps text slices and whole-file parses in agreement (csvRecordsFrom)", () => {
    const text = 'a,b\n1,"x\ny"\n\n2,z\n3,w\n';
    const first = csvRecordsFrom(text, { maxRecords: 2 });
    expect(first.records).toEqual([
      { a: "1", b: "x\ny" },
      { a: "2", b: "z" },
    ]);
    const second = csvRecordsFrom(text, { startOffset: first.nextOffset, maxRecords: 2 });
    expect(second).toMatchObject({ records: [{ a: "3", b: "w" }], done: true });
  });

  it("removes NUL characters from cells and names", () => {
    const text = "te\u0000xt\nab\u0000c\n";
    expect(parseCsv(text).records).toEqual([{ text: "abc" }]);
    expect(parseCsvWindow(utf8(text), 0, true, undefined, undefined)?.records).toEqual([
      { text: "abc" },
    ]);
  });
});
