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

/** A stored file opened for reading, streamed rather than held in memory (up to 100 MB). */
export interface StoredFile {
  body: ReadableStream<Uint8Array>;
  /** bytes */
  size: number;
  /** the Content-Type it was stored with, if any */
  contentType: string | null;
}

/**
 * Reads stored files back whole (downloads). Apart from FileStore so that code that only
 * writes and deletes files does not have to offer reading.
 */
export interface FileOpener {
  /** the file, or null when nothing is stored under `key` */
  open(key: string): Promise<StoredFile | null>;
}
