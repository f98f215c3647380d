/**
 * Where uploaded and fetched source files live (R2 in Workers). The domain only needs to
 * remove them; writes happen at the edge where the request stream is.
 */
export interface FileStore {
  deletePrefix(prefix: string): Promise<void>;
  delete(key: string): Promise<void>;
}
