import { describe, expect, it } from "vitest";
import { filenameFromContentDisposition } from "../../src/documents/content-disposition.ts";
import { filenameFromUrl, sourceFilename } from "../../src/fetching/filename.ts";
import { MAX_FILENAME_LENGTH, sanitizeFilename } from "../../src/fetching/sanitize-filename.ts";

describe("sanitizeFilename", () => {
  it.each([
    ["report.pdf", "report.pdf"],
    ["../../etc/passwd", "passwd"],
    ["..\\..\\windows\\win.ini", "win.ini"],
    ["dir/", null],
    ["..", null],
    [".", null],
    ["", null],
    ["   ", null],
    [".hidden", "hidden"],
    ["trailing. . ", "trailing"],
    ["a\u0000b\nc\td\u007fe\u0085f.txt", "abcdef.txt"],
    ["evil\u202egnp.exe", "evilgnp.exe"],
    ['what?<is>"this"|*:.csv', "what__is__this____.csv"],
    ["Cafe\u0301.md", "Café.md"],
    ["東京 データ.csv", "東京 データ.csv"],
  ])("%j → %j", (raw, expected) => {
    expect(sanitizeFilename(raw)).toBe(expected);
  });

  it("caps the length and keeps the extension", () => {
    const name = sanitizeFilename(`${"a".repeat(500)}.pdf`);
    expect(name).toBe(`${"a".repeat(MAX_FILENAME_LENGTH - 4)}.pdf`);
  });

  it("counts characters, never splitting a surrogate pair", () => {
    const name = sanitizeFilename("😀".repeat(300));
    expect(Array.from(name ?? "")).toHaveLength(MAX_FILENAME_LENGTH);
    expect(name).toBe("😀".repeat(MAX_FILENAME_LENGTH));
  });
});

describe("filenameFromContentDisposition", () => {
  it.each([
    ['attachment; filename="report.pdf"', "report.pdf"],
    ["attachment; filename=report.pdf", "report.pdf"],
    ['attachment; FILENAME="a \\"quoted\\" name.txt"', 'a "quoted" name.txt'],
    ['inline; filename="a;b.csv"', "a;b.csv"],
    [`attachment; filename*=UTF-8''na%C3%AFve%20file.txt`, "naïve file.txt"],
    [`attachment; filename*=utf-8'en'%E2%82%AC%20rates.csv`, "€ rates.csv"],
    [`attachment; filename*=iso-8859-1''caf%E9.txt`, "café.txt"],
    [`attachment; filename="plain.txt"; filename*=UTF-8''fancy%E2%9C%93.txt`, "fancy✓.txt"],
    [`attachment; filename*=UTF-8''fancy.txt; filename="plain.txt"`, "fancy.txt"],
    // filename* that cannot be decoded falls back to filename.
    [`attachment; filename*=UTF-8''%FF%FE.txt; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=koi8-r''%C1.txt; filename="ok.txt"`, "ok.txt"],
    [`attachment; filename*=UTF-8''bad%zz.txt; filename="ok.txt"`, "ok.txt"],
    ["attachment", null],
    ["inline; name=x", null],
  ])("%s", (header, expected) => {
    expect(filenameFromContentDisposition(header)).toBe(expected);
  });
});

describe("filenameFromUrl and sourceFilename", () => {
  it.each([
    ["https://example.com/files/report.pdf", "report.pdf"],
    ["https://example.com/files/report.pdf?download=1#page=2", "report.pdf"],
    ["https://example.com/files/", "files"],
    ["https://example.com/", null],
    ["https://example.com/a%2Fb.txt", "a/b.txt"],
    ["https://example.com/bad%E0%A4%A.txt", "bad%E0%A4%A.txt"],
  ])("%s", (url, expected) => {
    expect(filenameFromUrl(new URL(url))).toBe(expected);
  });

  it("sanitises whichever source it uses", () => {
    expect(sourceFilename(null, new URL("https://example.com/a%2F..%2Fb.txt"))).toBe("b.txt");
    expect(sourceFilename('attachment; filename="../x.csv"', new URL("https://e.com/y"))).toBe(
      "x.csv",
    );
    // A header name that sanitises to nothing falls back to the URL.
    expect(sourceFilename('attachment; filename=".."', new URL("https://e.com/y.txt"))).toBe(
      "y.txt",
    );
    expect(sourceFilename(null, new URL("https://e.com/"))).toBeNull();
  });
});
