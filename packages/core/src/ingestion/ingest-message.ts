/**
 * The Queue's message contracts, shared by the producers (workers/api, and the ingest worker
 * itself) and the consumer (workers/ingest). Each message is a whole, bounded unit of work, so
 * redelivering it must be harmless.
 *
 * An `IngestMessage` is one slice of a document: `cursor` says where the next slice starts.
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

/**
 * Move a dataset's vector backlog into its HNSW graph (`indexVectorBacklog`), a bounded
 * amount per message; the consumer sends the message again while rows remain. Sent after
 * every write that stores embeddings: a document's last slice, and the rows routes.
 */
export interface VectorIndexMessage {
  v: 1;
  kind: "index-vectors";
  projectId: string;
  datasetId: string;
  /** when the message was first put off for the dataset's ingestion (ms since the epoch) */
  waitingSince?: number;
}

export type QueueMessage = IngestMessage | VectorIndexMessage;

export function vectorIndexMessage(projectId: string, datasetId: string): VectorIndexMessage {
  return { v: 1, kind: "index-vectors", projectId, datasetId };
}

export function isVectorIndexMessage(body: unknown): body is VectorIndexMessage {
  if (typeof body !== "object" || body === null) return false;
  const m = body as Record<string, unknown>;
  return (
    m.v === 1 &&
    m.kind === "index-vectors" &&
    typeof m.projectId === "string" &&
    typeof m.datasetId === "string" &&
    (m.waitingSince === undefined || Number.isFinite(m.waitingSince))
  );
}
