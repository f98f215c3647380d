/**
 * The one Queue message contract, shared by the producer (workers/api) and the consumer
 * (workers/ingest). `cursor` says where the next slice starts; a message is a whole,
 * bounded unit of work, so redelivering it must be harmless.
 */
export interface IngestMessage {
  v: 1;
  projectId: string;
  datasetId: string;
  documentId: string;
  cursor: IngestCursor | null;
}

export interface IngestCursor {
  /** where the next slice starts: a byte offset, a character offset or a page index */
  position: number;
  /** rows already written before this slice */
  rowsWritten: number;
  /** a CSV's header, read by the first slice and carried to the later ones */
  columns?: string[];
  /** the CSV delimiter detected by the first slice */
  delimiter?: string;
}

export function isIngestMessage(body: unknown): body is IngestMessage {
  if (typeof body !== "object" || body === null) return false;
  const m = body as Record<string, unknown>;
  return (
    m.v === 1 &&
    typeof m.projectId === "string" &&
    typeof m.datasetId === "string" &&
    typeof m.documentId === "string"
  );
}
