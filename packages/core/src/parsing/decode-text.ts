import { ParseError } from "./parse-error.ts";
import type { SourceKind } from "./source-kind.ts";
import { withoutNul } from "./without-nul.ts";

export interface DecodeTextOptions {
  /** the Content-Type as sent; its `charset=` parameter is honoured */
  contentType?: string | null;
  /** for HTML, a `<meta charset>` near the top of the document is honoured too */
  kind?: SourceKind | null;
}

/**
 * Bytes to text, choosing the encoding the way a browser would and failing loudly where a
 * guess would corrupt the text silently:
 *
 * 1. A byte order mark (UTF-8, UTF-16LE, UTF-16BE) wins over everything.
 * 2. Else the Content-Type's `charset=`; a label no decoder knows is a ParseError naming it.
 * 3. Else, for HTML, a `<meta charset>` / `http-equiv` in the first 4 KB (an unknown label
 *    there is ignored, as browsers do).
 * 4. Else UTF-16 without a BOM is recognised by its zero bytes (Excel's "Unicode text").
 * 5. Else UTF-8 if the bytes are valid UTF-8, otherwise windows-1252 — the encoding of
 *    undeclared legacy files in practice (Excel CSVs on Windows) — which decodes any byte.
 *
 * A declared encoding is trusted: bytes invalid in it become U+FFFD rather than failing the
 * whole file, since the declaration, not a guess, chose the decoder. Undeclared bytes that
 * are mostly NULs are binary, not text, and fail. NUL characters are removed from the result
 * (they end C strings in databases and mean nothing in text).
 */
export function decodeText(bytes: Uint8Array, options: DecodeTextOptions = {}): string {
  const encoding =
    encodingFromBom(bytes) ??
    declaredEncoding(options.contentType) ??
    (options.kind === "html" ? metaEncoding(bytes) : null) ??
    utf16WithoutBom(bytes);
  let text: string;
  if (encoding) {
    if (!encoding.startsWith("utf-16")) rejectBinary(bytes);
    text =
      encoding === "windows-1252"
        ? decodeWindows1252(bytes)
        : new TextDecoder(encoding).decode(bytes);
  } else {
    rejectBinary(bytes);
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      text = decodeWindows1252(bytes);
    }
  }
  return withoutNul(text);
}

function encodingFromBom(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return null;
}

function declaredEncoding(contentType: string | null | undefined): string | null {
  const label = contentType ? charsetParameter(contentType) : null;
  if (label === null) return null;
  const encoding = encodingForLabel(label);
  if (encoding === null) {
    throw new ParseError(
      `the Content-Type declares charset "${label}", which is not a known text encoding; ` +
        "declare the file's real encoding (for example utf-8 or windows-1252) or omit the charset",
      { reason: "unknown_charset" },
    );
  }
  return encoding;
}

function charsetParameter(contentType: string): string | null {
  for (const parameter of contentType.split(";").slice(1)) {
    const eq = parameter.indexOf("=");
    if (eq === -1 || parameter.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    const value = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .trim();
    return value === "" ? null : value;
  }
  return null;
}

/** The WHATWG encoding name for a label, or null when no decoder knows it. */
function encodingForLabel(label: string): string | null {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

/** `<meta charset=…>` and `<meta http-equiv="Content-Type" content="…; charset=…">`. */
const META_CHARSET = /<meta\s[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.+-]+)/gi;

function metaEncoding(bytes: Uint8Array): string | null {
  let head = "";
  const end = Math.min(bytes.length, 4096);
  for (let i = 0; i < end; i++) head += String.fromCharCode(bytes[i]!);
  for (const match of head.matchAll(META_CHARSET)) {
    const encoding = encodingForLabel(match[1]!);
    if (encoding === null) continue;
    // A meta tag readable as ASCII cannot be in UTF-16: browsers read such pages as UTF-8.
    return encoding.startsWith("utf-16") ? "utf-8" : encoding;
  }
  return null;
}

/**
 * ASCII-range text in UTF-16 has a zero in every other byte: in the odd positions for
 * little-endian, the even ones for big-endian. Real single-byte text has almost no zeros.
 */
function utf16WithoutBom(bytes: Uint8Array): string | null {
  // UTF-16 comes in whole code units: an odd length is not UTF-16, and a handful of bytes is
  // too little evidence to outvote the single-byte reading.
  if (bytes.length % 2 !== 0 || bytes.length < 8) return null;
  const end = Math.min(bytes.length, 4096);
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < end; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const pairs = end / 2;
  if (oddZeros > pairs * 0.3 && evenZeros < pairs * 0.05) return "utf-16le";
  if (evenZeros > pairs * 0.3 && oddZeros < pairs * 0.05) return "utf-16be";
  return null;
}

function rejectBinary(bytes: Uint8Array): void {
  const end = Math.min(bytes.length, 8192);
  let zeros = 0;
  let controls = 0;
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!;
    if (byte === 0) zeros++;
    // C0 controls other than tab, newline, form feed, carriage return and escape: text has
    // almost none, compressed or executable data is full of them.
    else if (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13 && byte !== 27)
      controls++;
  }
  if (end > 0 && (zeros > end * 0.5 || (zeros + controls > end * 0.3 && end >= 64))) {
    throw new ParseError(
      "the file is binary, not text (it is mostly NUL or control bytes); upload a text file, for example saved as UTF-8",
      { reason: "not_text" },
    );
  }
}

/**
 * The 32 characters windows-1252 puts in 0x80–0x9F (0 where the code page leaves a hole,
 * which WHATWG maps to the C1 control of the same number). Decoded by hand because Node's
 * TextDecoder treats the label as ISO-8859-1 and would turn "€" into U+0080.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152,
  0, 0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161,
  0x203a, 0x0153, 0, 0x017e, 0x0178,
];

function decodeWindows1252(bytes: Uint8Array): string {
  const parts: string[] = [];
  const chunk = 8192;
  for (let start = 0; start < bytes.length; start += chunk) {
    const codes = new Array<number>(Math.min(chunk, bytes.length - start));
    for (let i = 0; i < codes.length; i++) {
      const byte = bytes[start + i]!;
      codes[i] = byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_HIGH[byte - 0x80] || byte : byte;
    }
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join("");
}
