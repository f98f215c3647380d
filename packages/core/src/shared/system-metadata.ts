/** Metadata keys the service sets on every row; users can neither set nor overwrite them. */
export const SYSTEM_METADATA_KEYS: ReadonlySet<string> = new Set(["rowId", "documentId", "url"]);
