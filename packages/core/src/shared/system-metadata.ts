/**
 * Metadata keys the service sets; users can neither set nor overwrite them (a user's value is
 * dropped, as for every service key). `rowId` and `documentId` are on every row, `url` on rows
 * of documents that have one; `chunk` and `page` say where a row comes from
 * (docs/api.md#service-metadata-keys).
 */
export const SYSTEM_METADATA_KEYS: ReadonlySet<string> = new Set([
  "rowId",
  "documentId",
  "url",
  "chunk",
  "page",
]);

/**
 * Where a row of a document the service chunked (an upload, E5 content or a fetched URL)
 * comes from, for citing it.
 */
export interface RowPosition {
  /** 0-based position of the row in its document, counted across ingestion slices */
  chunk: number;
  /** rows from PDFs: the 1-based number of the page where the chunk starts */
  page?: number;
}

/** The position a stored row's metadata carries, to keep when the row is updated. */
export function storedRowPosition(metadata: Record<string, unknown>): RowPosition | undefined {
  const { chunk, page } = metadata;
  if (typeof chunk !== "number") return undefined;
  return typeof page === "number" ? { chunk, page } : { chunk };
}

/** The metadata keys of a position (none without one). */
export function positionMetadata(position: RowPosition | undefined): Partial<RowPosition> {
  if (!position) return {};
  return position.page === undefined
    ? { chunk: position.chunk }
    : { chunk: position.chunk, page: position.page };
}
