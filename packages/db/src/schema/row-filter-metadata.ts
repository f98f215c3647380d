import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * A narrow copy of every row's metadata, for filtering (E6): (dataset_id, row_id, metadata)
 * and nothing else. A filter's matches are found here and only the page's rows are read from
 * `rows`, whose heap is wide (text, keyword vector) and larger than the local database's
 * buffer cache: the metadata GIN index is lossy (jsonb_path_ops), so every match costs a heap
 * visit, and ~50 narrow rows share a page where ~6 wide ones do.
 *
 * Kept by statement-level triggers on `rows`, in the same statement as every row write (see
 * the `row_filter_metadata` migration): it always holds exactly the stored rows' metadata, and
 * no writer (E11, ingestion, E8, deletes) has to know it exists. No foreign key: a check per
 * row would cost every insert, and the delete trigger removes a row's copy with the row.
 * Triggers: packages/db/README.md.
 */
export const rowFilterMetadata = pgTable(
  "row_filter_metadata",
  {
    datasetId: text("dataset_id").notNull(),
    rowId: bigint("row_id", { mode: "number" }).notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    // Also the dataset's rows in insertion order: a broad filter walks this, not `rows`.
    primaryKey({ columns: [t.datasetId, t.rowId] }),
    // fastupdate on (migration 0024): a row's entries go to the pending list, not into the
    // index one by one (1.8 ms of a 100-row insert). The list is emptied off the writers' path
    // (`flushPendingIndexEntries`), so filters read little of it.
    index("row_filter_metadata_gin_idx")
      .using("gin", t.datasetId, sql`${t.metadata} jsonb_path_ops`)
      .with({ fastupdate: true }),
  ],
);
