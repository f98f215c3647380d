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
  /** byte offset in the source file, or page index for PDFs */
  position: number;
  /** rows already written before this slice, so row order stays stable across slices */
  rowsWritten: number;
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
