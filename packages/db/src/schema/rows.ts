import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./columns.ts";
import { datasets } from "./datasets.ts";
import { tsvector, vector } from "./types.ts";

/**
 * Rows (chunks) of a dataset. `id` is an identity column: it is the public row id and also
 * the insertion order that E6 lists by, so (dataset_id, id) is the listing index. Writers
 * reserve ids from the sequence before inserting ("by default", not "always"), because the id
 * is also stored in the row's metadata as `rowId`, where the filter language can reach it.
 * Writes fire the triggers that keep the search and filter tables: packages/db/README.md.
 */
export const rows = pgTable(
  "rows",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    projectId: text("project_id").notNull(),
    datasetId: belongsTo("dataset_id", () => datasets.id),
    documentId: text("document_id").notNull(),
    data: jsonb("data").$type<Record<string, string>>().notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
    /** embedding of the dataset's embedded column; null when the row is stored unembedded */
    embedding: vector("embedding"),
    /** keyword index of the embedded text, for hybrid search */
    fts: tsvector("fts"),
    /**
     * Terms (tokens) in `fts`: the row's length for BM25. Computed by the database, so every
     * writer of `fts` gets it right (`quarry_tsvector_length`, packages/db/README.md).
     */
    keywordLength: integer("keyword_length").generatedAlwaysAs(sql`quarry_tsvector_length(fts)`),
    imagePaths: jsonb("image_paths").$type<Record<string, string> | null>(),
    createdAt: createdAt(),
  },
  (t) => [
    index("rows_dataset_id_idx").on(t.datasetId, t.id),
    index("rows_dataset_document_idx").on(t.datasetId, t.documentId, t.id),
    // btree_gin puts dataset_id into the GIN index: a filter's matches come back for this
    // dataset only, instead of ANDing with a scan of the dataset's whole id index.
    index("rows_dataset_metadata_gin_idx").using(
      "gin",
      t.datasetId,
      sql`${t.metadata} jsonb_path_ops`,
    ),
    // The keyword searches' index: a query's rows come back for this dataset only, in one GIN
    // scan, whatever the planner believes of the dataset's size. Written `dataset_id || ''` on
    // purpose, and so queried (`keywordMatch`, core search/keyword-sql.ts): no btree on
    // dataset_id can serve that, so a dataset the statistics do not know yet (one created or
    // filled since the last ANALYZE, estimated at one row) is not read row by row for its
    // terms (migration 0022).
    index("rows_keyword_gin_idx").using("gin", sql`(${t.datasetId} || '')`, t.fts),
  ],
);
