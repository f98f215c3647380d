import { sanitizeFilename } from "../fetching/filename.ts";

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
