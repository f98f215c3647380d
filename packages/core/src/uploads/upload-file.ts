import { sanitizeFilename } from "../fetching/sanitize-filename.ts";
import { binaryContentRefusal, detectSourceKind, type SourceKind } from "../parsing/source-kind.ts";
import { UnsupportedMediaTypeError } from "../shared/errors.ts";

/** "100 MB" per upload, read as 100 MiB (104,857,600 bytes) of file (docs/api.md#limits). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/**
 * How much of the file's start decides its kind when type and name do not — the same
 * amount the ingest worker reads to decide it again, so both always agree.
 */
export const UPLOAD_SNIFF_BYTES = 512;

/** The stored name when the client's leaves nothing usable (`..`, control characters only). */
export const FALLBACK_UPLOAD_FILENAME = "upload";

/**
 * A file name is one segment of the storage key, and R2 keys take 1,024 bytes: with a
 * dataset id and a document id of up to 128 characters, 255 bytes of name always fit.
 */
const MAX_FILENAME_BYTES = 255;
const MAX_CONTENT_TYPE_LENGTH = 255;

/** The client's file name made safe as one key segment: no directories, controls or `..`. */
export function uploadFilename(raw: string | null): string {
  const safe = (raw === null ? null : sanitizeFilename(raw)) ?? FALLBACK_UPLOAD_FILENAME;
  return fitBytes(safe, MAX_FILENAME_BYTES);
}

/** R2 key of an uploaded file; the document's `url` is the same with a leading slash. */
export function uploadKey(datasetId: string, documentId: string, filename: string): string {
  return `${datasetId}/${documentId}/${filename}`;
}

/** The part's Content-Type as sent (the parsers read its charset), when it is sane. */
export function uploadContentType(raw: string | null): string | null {
  const value = raw?.trim() ?? "";
  if (value === "" || value.length > MAX_CONTENT_TYPE_LENGTH) return null;
  return /^[\x20-\x7e]+$/.test(value) ? value : null;
}

/**
 * The parser that will read the file — PDF, CSV, plain text, Markdown or HTML — by its first
 * bytes (a PDF is a PDF whatever its name; binary bytes are no text), then the part's
 * Content-Type and the file extension. Anything else is a 415, decided before a byte is stored.
 */
export function uploadSourceKind(hints: {
  contentType: string | null;
  filename: string | null;
  head: Uint8Array;
}): SourceKind {
  const kind = detectSourceKind(hints);
  if (kind) return kind;
  const described = [hints.contentType, hints.filename].filter(Boolean).join(", ");
  if (binaryContentRefusal(hints)) {
    throw new UnsupportedMediaTypeError(
      `file: the content is binary data, not text and not a PDF, although its type or name (${described}) says text; upload a PDF, CSV, plain text, Markdown or HTML file`,
    );
  }
  throw new UnsupportedMediaTypeError(
    `file: ${described ? `this type (${described})` : "this file"} cannot be parsed; upload PDF, CSV, plain text, Markdown or HTML`,
  );
}

/** Cuts a name to `max` UTF-8 bytes, keeping a short extension; never splits a character. */
function fitBytes(name: string, max: number): string {
  const encoder = new TextEncoder();
  if (encoder.encode(name).length <= max) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : "";
  let budget = max - encoder.encode(extension).length;
  let stem = "";
  for (const char of extension ? name.slice(0, dot) : name) {
    const size = encoder.encode(char).length;
    if (size > budget) break;
    stem += char;
    budget -= size;
  }
  return stem + extension;
}
