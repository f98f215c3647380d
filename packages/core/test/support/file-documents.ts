import { type Database, documents } from "@quarry/db";
import { type SourceReader, uploadKey } from "../../src/index.ts";

/** Stored files in memory: R2 itself is exercised end to end through workerd. */
export class MemorySources implements SourceReader {
  files = new Map<string, Uint8Array>();
  /** How many of the next reads fail, as a storage outage would. */
  failNextReads = 0;
  reads = 0;
  async size(key: string) {
    return this.files.get(key)?.length ?? null;
  }
  async read(key: string, offset: number, length: number) {
    this.reads++;
    if (this.failNextReads > 0) {
      this.failNextReads--;
      throw new Error("storage unavailable");
    }
    const file = this.files.get(key);
    if (!file) throw new Error("missing");
    return file.slice(offset, offset + length);
  }
}

export interface FileDocument {
  projectId: string;
  datasetId: string;
  id: string;
  /** Where the file's bytes are stored; by default where the upload route stores them. */
  key?: string;
  file: { name: string; type: string | null };
  status: "queued" | "ready";
  metadata?: Record<string, unknown>;
  chunkSize?: number;
  chunkOverlap?: number;
}

/**
 * The `documents` row of an uploaded file, as the upload route leaves it: named and typed after
 * the file and pointing at its stored bytes (`queued` until the ingest worker slices it).
 * Returns the storage key, where the caller puts the bytes.
 */
export async function insertFileDocument(db: Database, document: FileDocument): Promise<string> {
  const { file } = document;
  const key = document.key ?? uploadKey(document.datasetId, document.id, file.name);
  await db.insert(documents).values({
    projectId: document.projectId,
    datasetId: document.datasetId,
    id: document.id,
    filename: file.name,
    url: `/${key}`,
    storageKey: key,
    contentType: file.type,
    status: document.status,
    metadata: document.metadata ?? {},
    chunkSize: document.chunkSize,
    chunkOverlap: document.chunkOverlap,
  });
  return key;
}
