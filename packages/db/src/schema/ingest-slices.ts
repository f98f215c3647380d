import { bigint, foreignKey, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { documents } from "./documents.ts";

/**
 * A slice of an uploaded file being written: the row ids it reserved, in file order. An ingest
 * slice writes its rows in parts that commit on their own and run at once (each part is one
 * statement: several database backends work on one document), so the ids cannot come from the
 * sequence as each part runs: they are reserved here first, and a delivery that retries the
 * slice reuses them, so the document's rows list in file order whatever failed in between.
 * Deleted when the slice's progress is recorded on the document (core
 * `ingestion/slice-writes.ts`); only a slice in flight has one. Concurrency:
 * packages/db/CONCURRENCY.md.
 */
export const ingestSlices = pgTable(
  "ingest_slices",
  {
    datasetId: text("dataset_id").notNull(),
    documentId: text("document_id").notNull(),
    /** where the slice starts, in the document's progress unit (bytes or pages) */
    position: bigint("position", { mode: "number" }).notNull(),
    rowIds: bigint("row_ids", { mode: "number" }).array().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.documentId, t.position] }),
    foreignKey({
      name: "ingest_slices_document_fk",
      columns: [t.datasetId, t.documentId],
      foreignColumns: [documents.datasetId, documents.id],
    }).onDelete("cascade"),
  ],
);

/**
 * The parts of a slice already written: a part's rows and its marker commit in one statement,
 * so a redelivered slice skips exactly the parts that are stored (exactly-once per part).
 * Deleted with their slice.
 */
export const ingestSliceParts = pgTable(
  "ingest_slice_parts",
  {
    datasetId: text("dataset_id").notNull(),
    documentId: text("document_id").notNull(),
    position: bigint("position", { mode: "number" }).notNull(),
    part: integer("part").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.documentId, t.position, t.part] }),
    foreignKey({
      name: "ingest_slice_parts_slice_fk",
      columns: [t.datasetId, t.documentId, t.position],
      foreignColumns: [ingestSlices.datasetId, ingestSlices.documentId, ingestSlices.position],
    }).onDelete("cascade"),
  ],
);
