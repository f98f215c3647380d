import { filenameFromContentDisposition } from "../documents/content-disposition.ts";
import { sanitizeFilename } from "./sanitize-filename.ts";

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

/**
 * The file name of a fetched document: from Content-Disposition (`filename*` over `filename`,
 * RFC 6266) or else the last segment of the final URL's path. Always sanitised, because it
 * ends up in a storage key.
 */
export function sourceFilename(contentDisposition: string | null, url: URL): string | null {
  const fromHeader = contentDisposition ? filenameFromContentDisposition(contentDisposition) : null;
  const fromHeaderSafe = fromHeader === null ? null : sanitizeFilename(fromHeader);
  if (fromHeaderSafe !== null) return fromHeaderSafe;
  const fromUrl = filenameFromUrl(url);
  return fromUrl === null ? null : sanitizeFilename(fromUrl);
}
