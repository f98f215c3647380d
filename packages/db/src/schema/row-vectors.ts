import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { vector } from "./types.ts";

/**
 * The vectors the per-dataset HNSW graphs are built over: a narrow copy of `rows.embedding`
 * for the rows already indexed. Inserting into an HNSW graph is most of a row write's cost
 * (~3 ms per 384-d row in the embedded database, against ~0.7 ms for everything else), so
 * writers do not pay it: a new or re-embedded row goes to `vector_backlog`, searches rank the
 * backlog exactly alongside the graph, and the ingest worker moves the backlog into this
 * table (and so into the graph) in bounded batches after the write (`index-vectors`).
 *
 * Kept consistent with `rows` by statement-level triggers (migration `deferred_vector_index`):
 * a row is in exactly one of `indexed_vectors` and `vector_backlog` while it has an embedding,
 * and in neither once deleted or unembedded. No foreign key, for the same reason as
 * `row_filter_metadata`: a check per row would cost every write. Triggers: packages/db/README.md.
 *
 * List-partitioned by `dataset_id` (migration `vector_graph_partitions`, which Drizzle cannot
 * declare): each dataset's vectors are a table of their own with its own HNSW index, created
 * and dropped with the dataset (core `search/search-indexes.ts`), so a statement that names its
 * dataset is planned over that partition alone, whatever the number of datasets.
 */
export const indexedVectors = pgTable(
  "indexed_vectors",
  {
    rowId: bigint("row_id", { mode: "number" }).notNull(),
    datasetId: text("dataset_id").notNull(),
    embedding: vector("embedding").notNull(),
    /**
     * The graph generation the vector was moved in for (`datasets.graph_generation`): the
     * current one when moved row by row (it joins the serving graph), the next one when a bulk
     * build moves it (no serving graph takes it, and searches rank it exactly until the next
     * graph serves). Indexed, so that searches find the newer generations' vectors, nearly
     * always none, without reading the partition.
     */
    graphGeneration: integer("graph_generation").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.rowId] }),
    index("indexed_vectors_graph_generation_idx").on(t.graphGeneration),
  ],
);

/**
 * Rows whose embedding is stored but not yet in their dataset's HNSW graph, with a copy of that
 * embedding: searches rank the backlog exactly, and reading 1,600 vectors from this narrow
 * table took 1.0 ms where reading them from `rows` (one TOAST fetch each, since a row's text,
 * tsvector and vector do not fit inline together) took 8.6 ms, native PostgreSQL. The copy
 * is kept equal to the row's by the same triggers.
 */
export const vectorBacklog = pgTable(
  "vector_backlog",
  {
    datasetId: text("dataset_id").notNull(),
    rowId: bigint("row_id", { mode: "number" }).notNull(),
    embedding: vector("embedding").notNull(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.rowId] })],
);

/**
 * How many rows each dataset has in `vector_backlog`, as changes appended by a trigger on the
 * backlog (migration `vector_backlog_counts`) and folded by the indexer: the dataset's count is
 * the sum of its rows. Counting the backlog itself read every waiting row's embedding: 23–47 ms
 * for 100k waiting rows (156 MB of heap), paid by every `GET /datasets/{id}` and every indexer
 * turn during a bulk load. Appended rather than updated in place, as `keyword_dataset_deltas`,
 * so concurrent writers of one dataset never wait for each other on one row.
 */
export const vectorBacklogCounts = pgTable(
  "vector_backlog_counts",
  {
    datasetId: text("dataset_id").notNull(),
    pending: bigint("pending", { mode: "number" }).notNull(),
  },
  (t) => [index("vector_backlog_counts_dataset_idx").on(t.datasetId)],
);
