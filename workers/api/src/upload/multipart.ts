import { BadRequestError, parseContentDisposition, UnsupportedMediaTypeError } from "@quarry/core";

/**
 * A streaming multipart/form-data reader (RFC 7578 / RFC 2046) over a request body, so a
 * file part never has to fit in memory: `Request.formData()` and Hono's `parseBody()`
 * buffer the whole body. It holds at most one network chunk plus a boundary's length of
 * look-behind, and the bounded header block of the part being read.
 *
 * Usage: `nextPart()` advances to the next part (skipping what is left of the current one),
 * then `read()` yields the part's body chunk by chunk, or `readText()` all of it.
 */

export interface PartHeaders {
  name: string;
  /** the file name as sent (unsanitised, `filename*` preferred); null for a plain field */
  filename: string | null;
  contentType: string | null;
}

export interface MultipartLimits {
  /** the header block of one part */
  maxHeaderBytes: number;
  /** bytes before the first boundary */
  maxPreambleBytes: number;
  /** parts in one body; E9 has at most six meaningful ones */
  maxParts: number;
}

const DEFAULT_LIMITS: MultipartLimits = {
  maxHeaderBytes: 8 * 1024,
  maxPreambleBytes: 16 * 1024,
  maxParts: 16,
};

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const CRLF = new Uint8Array([CR, LF]);
const HEADER_END = new Uint8Array([CR, LF, CR, LF]);
const EMPTY = new Uint8Array(0);

/** `multipart/form-data; boundary=…` → the boundary; other types are a 415. */
export function multipartBoundary(contentType: string | null | undefined): string {
  const [type = "", ...params] = (contentType ?? "").split(";");
  if (type.trim().toLowerCase() !== "multipart/form-data") {
    throw new UnsupportedMediaTypeError(
      "Content-Type: uploads are multipart/form-data with the file in a part named 'file'",
    );
  }
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "boundary") continue;
    let value = param.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1);
    // RFC 2046: 1 to 70 characters, no line breaks; a little leniency on length costs nothing.
    if (value.length >= 1 && value.length <= 200 && !/[\r\n]/.test(value)) return value;
    break;
  }
  throw new BadRequestError("multipart/form-data needs a valid boundary parameter", "Content-Type");
}

/**
 * Reads and discards a request body, up to `maxBytes`, then releases it. A client that is
 * still sending often misses a reply sent before it finished (the connection is reset
 * under it, taking the unread reply along), so refused uploads are drained before the
 * reply. Past `maxBytes` the rest is left to the runtime, as for any unread request body;
 * it is not cancelled: a cancelled body makes `wrangler dev`'s proxy answer 503 instead of
 * our reply.
 */
export async function discardBody(body: ReadableStream<Uint8Array>, maxBytes: number) {
  return discard(body.getReader(), maxBytes);
}

async function discard(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
): Promise<{ read: number; reachedEnd: boolean }> {
  let read = 0;
  try {
    while (read < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return { read, reachedEnd: true };
      read += value.byteLength;
    }
  } catch {
    return { read, reachedEnd: true }; // the client went away: nothing left to read
  }
  reader.releaseLock();
  return { read, reachedEnd: false };
}

type State = "preamble" | "boundary" | "headers" | "body" | "done";

export class MultipartReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  /** CRLF "--" boundary: the delimiter that ends every part's body */
  private readonly delimiter: Uint8Array;
  private readonly limits: MultipartLimits;
  /**
   * Unprocessed bytes. It starts as a CRLF the body does not contain, so that a first
   * boundary at the very start is found by the same search as every later one.
   */
  private buf: Uint8Array = CRLF;
  private state: State = "preamble";
  private parts = 0;
  private ended = false;
  private received = 0;

  constructor(
    body: ReadableStream<Uint8Array>,
    boundary: string,
    limits: Partial<MultipartLimits> = {},
  ) {
    this.reader = body.getReader();
    this.delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Bytes taken from the body so far. */
  get bytesRead(): number {
    return this.received;
  }

  /** True once the closing boundary has been read. */
  get complete(): boolean {
    return this.state === "done";
  }

  /** The next part's headers, or null after the closing boundary. */
  async nextPart(): Promise<PartHeaders | null> {
    if (this.state === "body") while ((await this.read()) !== null);
    if (this.state === "preamble") await this.skipPreamble();
    if (this.state === "boundary") await this.readBoundaryLine();
    if (this.state === "done") return null;
    const headers = await this.readHeaders();
    this.state = "body";
    return headers;
  }

  /** The next bytes of the current part's body, or null at its end. */
  async read(): Promise<Uint8Array | null> {
    if (this.state !== "body") return null;
    for (;;) {
      const at = indexOf(this.buf, this.delimiter);
      if (at !== -1) {
        const data = this.buf.subarray(0, at);
        this.buf = this.buf.subarray(at + this.delimiter.length);
        this.state = "boundary";
        return data.length > 0 ? data : null;
      }
      // Everything before a possible start of the delimiter is body.
      const keep = partialMatchStart(this.buf, this.delimiter);
      if (keep > 0) {
        const data = this.buf.subarray(0, keep);
        this.buf = this.buf.subarray(keep);
        return data;
      }
      await this.pull();
    }
  }

  /** The current part's body as UTF-8 text, at most `maxBytes`; `field` names it in errors. */
  async readText(maxBytes: number, field: string): Promise<string> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (let chunk = await this.read(); chunk !== null; chunk = await this.read()) {
      size += chunk.length;
      if (size > maxBytes) throw new BadRequestError(`is longer than ${maxBytes} bytes`, field);
      chunks.push(chunk);
    }
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
        concat(chunks, size),
      );
    } catch {
      throw new BadRequestError("is not valid UTF-8 text", field);
    }
  }

  /**
   * Reads and discards what is left of the body, up to `maxBytes` more (the epilogue, or
   * the rest of a refused upload), then releases the stream. Returns whether the body was
   * read to its end.
   */
  async drain(maxBytes: number): Promise<boolean> {
    this.buf = EMPTY;
    if (this.ended) return true;
    const { read, reachedEnd } = await discard(this.reader, maxBytes);
    this.received += read;
    this.ended = true;
    return reachedEnd;
  }

  /** Appends the next network chunk; a body that ends here is truncated. */
  private async pull(): Promise<void> {
    if (!this.ended) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await this.reader.read();
      } catch {
        this.ended = true;
        throw new BadRequestError("the upload was interrupted before it ended", "body");
      }
      if (!result.done) {
        const chunk = result.value;
        this.received += chunk.byteLength;
        // Body reads hand out everything but a possible delimiter start, so `buf` is
        // usually empty here and the chunk is used without a copy.
        this.buf = this.buf.length === 0 ? chunk : concat([this.buf, chunk]);
        return;
      }
      this.ended = true;
    }
    throw new BadRequestError(
      this.state === "preamble"
        ? "no multipart boundary found (does the Content-Type's boundary match the body?)"
        : "ended before the closing multipart boundary (truncated upload?)",
      "body",
    );
  }

  private async skipPreamble(): Promise<void> {
    for (;;) {
      const at = indexOf(this.buf, this.delimiter);
      if (at !== -1) {
        this.buf = this.buf.subarray(at + this.delimiter.length);
        this.state = "boundary";
        return;
      }
      if (this.received > this.limits.maxPreambleBytes) {
        throw new BadRequestError("no multipart boundary found near the start", "body");
      }
      this.buf = this.buf.subarray(partialMatchStart(this.buf, this.delimiter));
      await this.pull();
    }
  }

  /** After a delimiter: `--` closes the body; otherwise optional padding and CRLF. */
  private async readBoundaryLine(): Promise<void> {
    for (;;) {
      if (this.buf.length >= 2 && this.buf[0] === DASH && this.buf[1] === DASH) {
        this.state = "done";
        this.buf = EMPTY;
        return;
      }
      const eol = indexOf(this.buf, CRLF);
      if (eol !== -1) {
        for (let i = 0; i < eol; i++) {
          if (this.buf[i] !== 0x20 && this.buf[i] !== 0x09) {
            throw new BadRequestError("malformed multipart boundary line", "body");
          }
        }
        this.buf = this.buf.subarray(eol + 2);
        if (++this.parts > this.limits.maxParts) {
          throw new BadRequestError(`has more than ${this.limits.maxParts} parts`, "body");
        }
        this.state = "headers";
        return;
      }
      if (this.buf.length > 256) {
        throw new BadRequestError("malformed multipart boundary line", "body");
      }
      await this.pull();
    }
  }

  private async readHeaders(): Promise<PartHeaders> {
    for (;;) {
      // A part may have no headers at all: its block is then just the empty line.
      const at = startsWith(this.buf, CRLF) ? -2 : indexOf(this.buf, HEADER_END);
      if (
        at > this.limits.maxHeaderBytes ||
        (at === -1 && this.buf.length > this.limits.maxHeaderBytes)
      ) {
        throw new BadRequestError(
          `a part's headers are longer than ${this.limits.maxHeaderBytes} bytes`,
          "body",
        );
      }
      if (at !== -1) {
        const block = at === -2 ? "" : new TextDecoder().decode(this.buf.subarray(0, at));
        this.buf = this.buf.subarray(at === -2 ? 2 : at + 4);
        return parsePartHeaders(block);
      }
      await this.pull();
    }
  }
}

/** A part's header block → name, file name and type. */
export function parsePartHeaders(block: string): PartHeaders {
  const headers = new Map<string, string>();
  let last: string | undefined;
  for (const line of block.split("\r\n")) {
    if (line === "") continue;
    if ((line.startsWith(" ") || line.startsWith("\t")) && last !== undefined) {
      headers.set(last, `${headers.get(last)} ${line.trim()}`); // obsolete folding
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) throw new BadRequestError("malformed part header", "body");
    last = line.slice(0, colon).trim().toLowerCase();
    headers.set(last, line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition");
  if (disposition === undefined || !/^form-data\s*(;|$)/i.test(disposition)) {
    throw new BadRequestError("every part needs Content-Disposition: form-data", "body");
  }
  // Form encoders escape only quotes: `C:\dir\a.txt` keeps its backslashes.
  const { parameters, filename } = parseContentDisposition(disposition, {
    backslashes: "form-data",
  });
  const name = parameters.get("name");
  if (name === undefined) {
    throw new BadRequestError("a part's Content-Disposition has no name", "body");
  }
  const named = parameters.has("filename*") || parameters.has("filename");
  return {
    name,
    filename: named ? (filename ?? "") : null,
    contentType: headers.get("content-type") ?? null,
  };
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** Where a suffix of `buf` that is a proper prefix of `needle` starts (`buf.length` if none). */
function partialMatchStart(buf: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  for (let i = Math.max(0, buf.length - needle.length + 1); i < buf.length; i++) {
    if (buf[i] !== first) continue;
    let j = 1;
    while (i + j < buf.length && buf[i + j] === needle[j]) j++;
    if (i + j === buf.length) return i;
  }
  return buf.length;
}

function startsWith(buf: Uint8Array, prefix: Uint8Array): boolean {
  if (buf.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[i] !== prefix[i]) return false;
  return true;
}

function concat(chunks: Uint8Array[], size = chunks.reduce((n, c) => n + c.length, 0)) {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
