/**
 * The file name of a fetched document: from Content-Disposition (`filename*` over `filename`,
 * RFC 6266) or else the last segment of the final URL's path. Always sanitised, because it
 * ends up in a storage key.
 */

export const MAX_FILENAME_LENGTH = 200;

/** A name that is safe as one path segment, or null when nothing usable is left. */
export function sanitizeFilename(raw: string): string | null {
  // Only the last segment: a name like "../../etc/passwd" or "C:\\x\\y.pdf" keeps its basename.
  const base = raw.split(/[/\\]/).pop() ?? "";
  const cleaned = base
    .normalize("NFC")
    // C0/C1 controls, DEL, and bidirectional overrides that make a name display as another.
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, "")
    .replace(/[<>:"|?*]/g, "_")
    .trim()
    .replace(/^\.+/, "")
    .replace(/[. ]+$/, "");
  if (cleaned === "") return null;
  return truncate(cleaned, MAX_FILENAME_LENGTH);
}

/** Keeps the extension when a name is too long; never splits a surrogate pair. */
function truncate(name: string, max: number): string {
  const chars = Array.from(name);
  if (chars.length <= max) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
  if (extension.length > 0 && extension.length <= 16) {
    const stem = Array.from(name.slice(0, dot)).slice(0, max - extension.length);
    return stem.join("") + extension.join("");
  }
  return chars.slice(0, max).join("");
}

/** The file name a Content-Disposition header carries, unsanitised; null when it has none. */
export function filenameFromContentDisposition(header: string): string | null {
  const params = parseParameters(header);
  const extended = params.get("filename*");
  if (extended !== undefined) {
    const decoded = decodeExtendedValue(extended);
    if (decoded !== null) return decoded;
  }
  return params.get("filename") ?? null;
}

/** The last non-empty path segment of a URL, percent-decoded; null for `/`. */
export function filenameFromUrl(url: URL): string | null {
  const segment = url.pathname
    .split("/")
    .filter((part) => part !== "")
    .pop();
  if (segment === undefined) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Picks and sanitises the name: Content-Disposition first, then the URL. */
export function sourceFilename(contentDisposition: string | null, url: URL): string | null {
  const fromHeader = contentDisposition ? filenameFromContentDisposition(contentDisposition) : null;
  const fromHeaderSafe = fromHeader === null ? null : sanitizeFilename(fromHeader);
  if (fromHeaderSafe !== null) return fromHeaderSafe;
  const fromUrl = filenameFromUrl(url);
  return fromUrl === null ? null : sanitizeFilename(fromUrl);
}

/** `type; a=b; c="d \"e\""` → Map { a → b, c → d "e" } with lower-cased names. */
function parseParameters(header: string): Map<string, string> {
  const params = new Map<string, string>();
  const pattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (const match of header.matchAll(pattern)) {
    const name = (match[1] ?? "").toLowerCase();
    const value =
      match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : (match[3] ?? "").trim();
    // The first occurrence wins, as RFC 6266 recommends for duplicated parameters.
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}

/** RFC 8187 `charset'language'percent-encoded`, for UTF-8 and ISO-8859-1. */
function decodeExtendedValue(value: string): string | null {
  const match = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!match) return null;
  const charset = (match[1] ?? "").toLowerCase();
  const bytes = percentDecode(match[2] ?? "");
  if (bytes === null) return null;
  if (charset === "utf-8") {
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      return null;
    }
  }
  if (charset === "iso-8859-1")
    return Array.from(bytes, (byte) => String.fromCharCode(byte)).join("");
  return null;
}

function percentDecode(text: string): Uint8Array | null {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (text[i] === "%") {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (char < 0x80) {
      bytes.push(char);
    } else {
      return null; // RFC 8187 values are ASCII; anything else is malformed
    }
  }
  return new Uint8Array(bytes);
}
