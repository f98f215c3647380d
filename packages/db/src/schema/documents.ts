import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, updatedAt } from "./columns.ts";
import { datasets } from "./datasets.ts";

export type DocumentStatus = "queued" | "processing" | "ready" | "failed";
export interface DocumentProgress {
  /** unit of `done`/`total`: bytes of the source file, pages of a PDF, or rows written */
  unit: "bytes" | "pages" | "rows";
  done: number;
  total: number | null;
  rows: number;
  /** where ingestion resumes from, for the ingest worker only (a CSV's header and delimiter) */
  resume?: { columns?: string[]; delimiter?: string };
}

/** Documents are identified by (dataset, id): ids are user-chosen and unique within a dataset. */
export const documents = pgTable(
  "documents",
  {
    projectId: text("project_id").notNull(),
    datasetId: belongsTo("dataset_id", () => datasets.id),
    id: text("id").notNull(),
    filename: text("filename"),
    url: text("url"),
    /** R2 object key of the uploaded or fetched source, when there is one */
    storageKey: text("storage_key"),
    contentType: text("content_type"),
    status: text("status").$type<DocumentStatus>().notNull(),
    error: text("error"),
    progress: jsonb("progress").$type<DocumentProgress | null>(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    chunkSize: integer("chunk_size"),
    chunkOverlap: integer("chunk_overlap"),
    /** full text of the document for keyword search (E3); null for row-only documents */
    content: text("content"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.id] }),
    index("documents_project_dataset_created_idx").on(t.projectId, t.datasetId, t.createdAt),
    // Whether a dataset is being ingested (the vector indexer waits for it): a few entries.
    index("documents_ingesting_idx")
      .on(t.datasetId)
      .where(sql`${t.status} in ('queued', 'processing')`),
  ],
);
