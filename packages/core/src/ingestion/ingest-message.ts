import { z } from "zod";

/**
 * The Queue's message contract, shared by the producers (workers/api, and the ingest worker
 * itself) and the consumer (workers/ingest): one zod schema per kind, validated on send and
 * on receipt. Each message is a whole, bounded unit of work, so redelivering it must be
 * harmless.
 */

/** Where the next slice of a document starts, and what the earlier slices learnt. */
export const ingestCursorSchema = z.object({
  /** a byte offset, a character offset or a page index */
  position: z.number().int().min(0),
  /** rows already written before this slice */
  rowsWritten: z.number().int().min(0),
  /** a CSV's header, read by the first slice and carried to the later ones */
  columns: z.array(z.string()).optional(),
  /** the CSV delimiter detected by the first slice */
  delimiter: z.string().optional(),
});
export type IngestCursor = z.infer<typeof ingestCursorSchema>;

/** One slice of a document; a null (or absent) `cursor` is its first slice. */
export const ingestMessageSchema = z.object({
  v: z.literal(1),
  projectId: z.string().min(1),
  datasetId: z.string().min(1),
  documentId: z.string().min(1),
  cursor: ingestCursorSchema.nullable().default(null),
});
export type IngestMessage = z.infer<typeof ingestMessageSchema>;

/**
 * Move a dataset's vector backlog into its HNSW graph (`indexVectorBacklog`), a bounded
 * amount per message; the consumer sends the message again while rows remain. Sent after
 * every write that stores embeddings: a document's last slice, and the rows routes.
 */
export const vectorIndexMessageSchema = z.object({
  v: z.literal(1),
  kind: z.literal("index-vectors"),
  projectId: z.string().min(1),
  datasetId: z.string().min(1),
  /** when the message was first put off for the dataset's ingestion (ms since the epoch) */
  waitingSince: z.number().finite().optional(),
});
export type VectorIndexMessage = z.infer<typeof vectorIndexMessageSchema>;

/** Every message the queue carries. `kind` tells them apart; slices predate it and have none. */
export const queueMessageSchema = z.union([vectorIndexMessageSchema, ingestMessageSchema]);
export type QueueMessage = z.infer<typeof queueMessageSchema>;

export function vectorIndexMessage(projectId: string, datasetId: string): VectorIndexMessage {
  return { v: 1, kind: "index-vectors", projectId, datasetId };
}

export function isIngestMessage(body: unknown): body is IngestMessage {
  return ingestMessageSchema.safeParse(body).success;
}

export function isVectorIndexMessage(body: unknown): body is VectorIndexMessage {
  return vectorIndexMessageSchema.safeParse(body).success;
}
