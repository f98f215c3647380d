/**
 * Byte access to a stored source file (R2 at the edge). Ranged reads let a slice touch only
 * its window of a 100 MB file.
 */
export interface SourceReader {
  /** the object's size in bytes, or null when it is gone */
  size(key: string): Promise<number | null>;
  /** up to `length` bytes from `offset` (fewer at the end of the file) */
  read(key: string, offset: number, length: number): Promise<Uint8Array>;
}
