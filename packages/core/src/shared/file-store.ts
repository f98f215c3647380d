/**
 * Where uploaded and fetched source files live (R2 in Workers). Uploads stream into it at the
 * edge; the domain stores sources it already holds in memory (large E5 documents) and
 * removes files with their documents.
 */
export interface FileStore {
  put(key: string, bytes: Uint8Array, contentType: string | null): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  delete(key: string): Promise<void>;
}
