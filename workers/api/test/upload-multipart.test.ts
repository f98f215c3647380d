import { BadRequestError, UnsupportedMediaTypeError } from "@quarry/core";
import { describe, expect, it } from "vitest";
import { MultipartReader, multipartBoundary, parsePartHeaders } from "../src/upload/multipart.ts";

/** Unit tests of the streaming multipart reader; no stack needed. */

const encoder = new TextEncoder();
const BOUNDARY = "----quarry7MA4YWxkTrZu0gW";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

function bytes(...pieces: (string | Uint8Array)[]): Uint8Array {
  const parts = pieces.map((p) => (typeof p === "string" ? encoder.encode(p) : p));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

interface Parsed {
  name: string;
  filename: string | null;
  contentType: string | null;
  body: string;
}

async function parseAll(chunks: Uint8Array[], boundary = BOUNDARY): Promise<Parsed[]> {
  const reader = new MultipartReader(streamOf(chunks), boundary);
  const parts: Parsed[] = [];
  for (let part = await reader.nextPart(); part !== null; part = await reader.nextPart()) {
    const body: Uint8Array[] = [];
    for (let c = await reader.read(); c !== null; c = await reader.read()) body.push(c.slice());
    parts.push({ ...part, body: new TextDecoder().decode(bytes(...body)) });
  }
  expect(reader.complete).toBe(true);
  return parts;
}

function splitAt(body: Uint8Array, ...cuts: number[]): Uint8Array[] {
  const points = [0, ...cuts, body.length];
  return points.slice(1).map((end, i) => body.slice(points[i], end));
}

/** A form with fields before and after the file, CRLF inside the file and near-boundaries. */
const fileContent =
  "id,text\r\n1,first\r\n--not-the-boundary\r\n\r\n-\r\n--" +
  BOUNDARY.slice(0, 10) +
  "\r\n2,last\r\n";
const form = bytes(
  "preamble that is ignored\r\n",
  `--${BOUNDARY}\r\n`,
  'Content-Disposition: form-data; name="chunk_size"\r\n\r\n',
  "500",
  `\r\n--${BOUNDARY}\r\n`,
  'Content-Disposition: form-data; name="file"; filename="data.csv"\r\n',
  "Content-Type: text/csv\r\n\r\n",
  fileContent,
  `\r\n--${BOUNDARY}\r\n`,
  'content-disposition: form-data; name="metadata"\r\n\r\n',
  '{"a":"b\r\nc"}',
  `\r\n--${BOUNDARY}--\r\n`,
  "epilogue, also ignored",
);
const expected: Parsed[] = [
  { name: "chunk_size", filename: null, contentType: null, body: "500" },
  { name: "file", filename: "data.csv", contentType: "text/csv", body: fileContent },
  { name: "metadata", filename: null, contentType: null, body: '{"a":"b\r\nc"}' },
];

describe("multipart reader", () => {
  it("reads fields before and after the file part, ignoring preamble and epilogue", async () => {
    expect(await parseAll([form])).toEqual(expected);
  });

  it("gives the same parts wherever the network splits the body", async () => {
    for (let cut = 1; cut < form.length; cut++) {
      expect(await parseAll(splitAt(form, cut)), `split at ${cut}`).toEqual(expected);
    }
    for (let cut = 1; cut < form.length - 7; cut += 3) {
      expect(await parseAll(splitAt(form, cut, cut + 7)), `split at ${cut}, ${cut + 7}`).toEqual(
        expected,
      );
    }
  });

  it("reads a body delivered one byte at a time", async () => {
    const single = Array.from(form, (b) => new Uint8Array([b]));
    expect(await parseAll(single)).toEqual(expected);
  });

  it("passes binary content through unchanged", async () => {
    const binary = new Uint8Array(4096).map((_, i) => (i * 7 + (i >> 8)) & 0xff);
    const body = bytes(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n`,
      binary,
      `\r\n--${BOUNDARY}--`,
    );
    for (const cut of [1, 60, 61, 2000, body.length - 30]) {
      const reader = new MultipartReader(streamOf(splitAt(body, cut)), BOUNDARY);
      await reader.nextPart();
      const got: Uint8Array[] = [];
      for (let c = await reader.read(); c !== null; c = await reader.read()) got.push(c.slice());
      expect(bytes(...got)).toEqual(binary);
      expect(await reader.nextPart()).toBeNull();
    }
  });

  it("skips an unread part when asked for the next one", async () => {
    const reader = new MultipartReader(streamOf(splitAt(form, 100, 200)), BOUNDARY);
    expect((await reader.nextPart())?.name).toBe("chunk_size");
    expect((await reader.nextPart())?.name).toBe("file");
    expect((await reader.nextPart())?.name).toBe("metadata");
    expect(await reader.readText(100, "metadata")).toBe('{"a":"b\r\nc"}');
    expect(await reader.nextPart()).toBeNull();
  });

  it("accepts a body without preamble, a part without a Content-Type and an empty file", async () => {
    const body = bytes(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename=""\r\n\r\n`,
      `\r\n--${BOUNDARY}--`,
    );
    expect(await parseAll([body])).toEqual([
      { name: "file", filename: "", contentType: null, body: "" },
    ]);
  });

  it("tolerates transport padding after a boundary", async () => {
    const body = bytes(
      `--${BOUNDARY}  \t\r\nContent-Disposition: form-data; name="a"\r\n\r\nx`,
      `\r\n--${BOUNDARY}--`,
    );
    expect((await parseAll([body]))[0]?.body).toBe("x");
  });

  it("refuses a truncated body wherever it is cut", async () => {
    const cutPoints = [0, 10, 30, 60, 120, form.length - 40, form.length - 30];
    // Anything before the closing delimiter's "--" is missing its end.
    const closing = form.length - "--\r\nepilogue, also ignored".length;
    for (let cut = 0; cut < closing; cut += 5) cutPoints.push(cut);
    for (const cut of cutPoints) {
      const promise = parseAll(splitAt(form.slice(0, cut), Math.floor(cut / 2)));
      await expect(promise, `cut at ${cut}`).rejects.toBeInstanceOf(BadRequestError);
    }
  });

  it("says when the boundary never appears", async () => {
    const promise = parseAll([encoder.encode("just some text, not a form")]);
    await expect(promise).rejects.toThrow(/no multipart boundary found/);
  });

  it("refuses parts without Content-Disposition or name, and oversized headers", async () => {
    const noDisposition = bytes(
      `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${BOUNDARY}--`,
    );
    await expect(parseAll([noDisposition])).rejects.toThrow(/Content-Disposition/);
    const noName = bytes(
      `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--`,
    );
    await expect(parseAll([noName])).rejects.toThrow(/no name/);
    const huge = bytes(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${"p".repeat(9000)}\r\n\r\nx\r\n--${BOUNDARY}--`,
    );
    await expect(parseAll([huge])).rejects.toThrow(/headers are longer/);
  });

  it("bounds text fields and decodes them as UTF-8", async () => {
    const body = bytes(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n`,
      '{"name":"Zoë ✓"}',
      `\r\n--${BOUNDARY}--`,
    );
    const ok = new MultipartReader(streamOf([body]), BOUNDARY);
    await ok.nextPart();
    expect(await ok.readText(1000, "metadata")).toBe('{"name":"Zoë ✓"}');
    const small = new MultipartReader(streamOf([body]), BOUNDARY);
    await small.nextPart();
    await expect(small.readText(5, "metadata")).rejects.toThrow(/metadata: is longer than 5/);
  });

  it("drains the rest of a body and reports whether it reached the end", async () => {
    const reader = new MultipartReader(streamOf(splitAt(form, 50, 100, 150)), BOUNDARY);
    await reader.nextPart();
    expect(await reader.drain(1024)).toBe(true);
    expect(reader.bytesRead).toBe(form.length);
    const capped = new MultipartReader(streamOf(splitAt(form, 50, 100, 150)), BOUNDARY);
    await capped.nextPart();
    expect(await capped.drain(10)).toBe(false);
  });
});

describe("part headers", () => {
  it("prefers filename* (RFC 8187) over filename", () => {
    const parsed = parsePartHeaders(
      `Content-Disposition: form-data; name="file"; filename="EUR rates.csv"; filename*=UTF-8''%E2%82%AC%20rates.csv\r\nContent-Type: text/csv`,
    );
    expect(parsed).toEqual({ name: "file", filename: "€ rates.csv", contentType: "text/csv" });
  });

  it("reads filename* alone, raw UTF-8 names and escaped quotes", () => {
    expect(
      parsePartHeaders(`Content-Disposition: form-data; name=file; filename*=utf-8''na%C3%AFve.txt`)
        .filename,
    ).toBe("naïve.txt");
    expect(
      parsePartHeaders('Content-Disposition: form-data; name="file"; filename="résumé.pdf"')
        .filename,
    ).toBe("résumé.pdf");
    expect(
      parsePartHeaders('Content-Disposition: form-data; name="a\\"b"; filename="x\\"y.txt"'),
    ).toMatchObject({ name: 'a"b', filename: 'x"y.txt' });
  });

  it("keeps backslashes that form encoders send unescaped", () => {
    expect(
      parsePartHeaders('Content-Disposition: form-data; name="file"; filename="C:\\dir\\a.txt"')
        .filename,
    ).toBe("C:\\dir\\a.txt");
    expect(
      parsePartHeaders(
        `Content-Disposition: form-data; name="file"; filename*=UTF-8''%ZZ; filename="plain.txt"`,
      ).filename,
    ).toBe("plain.txt");
  });

  it("keeps a name that looks like a parameter inside quotes", () => {
    expect(parsePartHeaders('Content-Disposition: form-data; name="x; filename=evil.exe"')).toEqual(
      { name: "x; filename=evil.exe", filename: null, contentType: null },
    );
  });
});

describe("boundary from Content-Type", () => {
  it("reads plain and quoted boundaries", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe("a b:c");
  });

  it("refuses a missing or empty boundary with a 400 and other types with a 415", () => {
    expect(() => multipartBoundary("multipart/form-data")).toThrow(BadRequestError);
    expect(() => multipartBoundary('multipart/form-data; boundary=""')).toThrow(BadRequestError);
    expect(() => multipartBoundary("application/json")).toThrow(UnsupportedMediaTypeError);
    expect(() => multipartBoundary(null)).toThrow(UnsupportedMediaTypeError);
  });
});
