import { sanitizeFilename } from "../fetching/sanitize-filename.ts";

/**
 * The one Content-Disposition module: read on fetched sources (RFC 6266) and on the parts of
 * an upload (multipart/form-data, RFC 7578), written on downloads.
 */

export interface ContentDisposition {
  /** `attachment`, `inline`, `form-data`…, lower-cased */
  type: string;
  /** parameters by lower-cased name, unquoted; the first occurrence wins (RFC 6266 §4.1) */
  parameters: Map<string, string>;
  /**
   * The file name as sent, unsanitised: `filename*` (RFC 8187, formerly 5987) when it
   * decodes, else `filename`; null when there is neither usable.
   */
  filename: string | null;
}

export interface ContentDispositionOptions {
  /**
   * How a quoted value's backslashes read. `"quoted-pair"` (HTTP responses, RFC 9110
   * quoted-string): `\x` is `x`. `"form-data"`: form encoders (browsers, undici, curl)
   * percent-encode quotes and line breaks and leave backslashes alone — an old browser's
   * `C:\dir\a.txt` arrives as is — so only `\"` and `\\` are unescaped.
   */
  backslashes: "quoted-pair" | "form-data";
}

export function parseContentDisposition(
  header: string,
  { backslashes }: ContentDispositionOptions = { backslashes: "quoted-pair" },
): ContentDisposition {
  const type = (/^\s*([^;\s]*)/.exec(header)?.[1] ?? "").toLowerCase();
  const escaped = backslashes === "quoted-pair" ? /\\(.)/g : /\\(["\\])/g;
  const parameters = new Map<string, string>();
  const pattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const match of header.matchAll(pattern)) {
    const name = (match[1] ?? "").toLowerCase();
    const value =
      match[2] !== undefined ? match[2].replace(escaped, "$1") : (match[3] ?? "").trim();
    if (!parameters.has(name)) parameters.set(name, value);
  }
  const extended = parameters.get("filename*");
  const decoded = extended === undefined ? null : decodeExtendedValue(extended);
  return { type, parameters, filename: decoded ?? parameters.get("filename") ?? null };
}

/** The file name a (response's) Content-Disposition header carries, unsanitised; or null. */
export function filenameFromContentDisposition(header: string): string | null {
  return parseContentDisposition(header).filename;
}

/**
 * RFC 8187 `charset'language'value-chars`, for UTF-8 and ISO-8859-1; null when malformed
 * (a bad escape, bytes that are not UTF-8, raw non-ASCII or spaces, another charset), so
 * the caller falls back to `filename`.
 */
function decodeExtendedValue(value: string): string | null {
  const match = /^([^']*)'[^']*'([\x21-\x7e]*)$/.exec(value);
  if (!match) return null;
  const charset = (match[1] ?? "").toLowerCase();
  const bytes = percentDecode(match[2] ?? "");
  if (bytes === null) return null;
  if (charset === "utf-8") {
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return null;
    }
  }
  if (charset === "iso-8859-1") return String.fromCharCode(...bytes);
  return null;
}

function percentDecode(text: string): Uint8Array | null {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "%") {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(text.charCodeAt(i));
    }
  }
  return Uint8Array.from(bytes);
}

/** The name a download falls back to when a document's name leaves nothing usable. */
export const FALLBACK_DOWNLOAD_FILENAME = "download";

/**
 * `Content-Disposition: attachment` with a file name, as RFC 6266 asks: `filename` carries
 * an ASCII stand-in every client reads (non-ASCII characters, quotes, backslashes and `%` —
 * which some clients percent-decode — become `_`); when that is not the name itself,
 * `filename*` carries the exact UTF-8 name, percent-encoded (RFC 8187, formerly 5987), which
 * current clients prefer. The name is sanitised first: one segment, no control characters.
 */
export function attachmentDisposition(filename: string | null): string {
  const name =
    (filename === null ? null : sanitizeFilename(filename)) ?? FALLBACK_DOWNLOAD_FILENAME;
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const plain = `attachment; filename="${ascii}"`;
  return ascii === name ? plain : `${plain}; filename*=UTF-8''${extendedValue(name)}`;
}

/** RFC 8187 `value-chars`: attr-char as is, every other UTF-8 byte as %XX. */
function extendedValue(value: string): string {
  // encodeURIComponent leaves `'()*` and `!` alone; attr-char excludes the first four.
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
