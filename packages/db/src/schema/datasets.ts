import { index, integer, jsonb, pgTable, real, text, timestamp } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./columns.ts";
import { projects } from "./projects.ts";

export type DatasetKind = "standard" | "hybrid";
/** What a dataset's `ef_search` was measured on (core `calibrateEfSearch`). */
export type CalibrationQueries = "searches" | "stored_texts";
export interface ColumnDefinition {
  name: string;
  type: "text";
  embed: boolean;
}
/**
 * How a dataset's HNSW graph holds its vectors (migration `vector_graph_encodings`), fixed when
 * the dataset is created: its graphs are indexes over this expression of `embedding`, and its
 * searches must repeat it for the planner to walk them.
 * - `vector`: full precision, `embedding::vector(n)` (up to 2,000 dimensions);
 * - `halfvec`: half precision over the unit vector, `l2_normalize(embedding::vector(n))::halfvec(n)`:
 *   cosine distance ignores length, and a unit vector's components are within ±1, which
 *   half precision always holds (±65,504 at most);
 * - `halfvec_unnormalized`: `embedding::halfvec(n)`, the graphs of datasets of more than 2,000
 *   dimensions created before encodings were chosen.
 */
export type VectorGraphEncoding = "vector" | "halfvec" | "halfvec_unnormalized";
export type MetadataColumnType = "string" | "number" | "boolean" | "string[]";
export interface MetadataColumnDefinition {
  name: string;
  type: MetadataColumnType;
}

export const datasets = pgTable(
  "datasets",
  {
    id: text("id").primaryKey(),
    projectId: belongsTo("project_id", () => projects.id),
    name: text("name").notNull(),
    kind: text("kind").$type<DatasetKind>().notNull(),
    columns: jsonb("columns").$type<ColumnDefinition[]>().notNull(),
    metadataColumns: jsonb("metadata_columns").$type<MetadataColumnDefinition[]>().notNull(),
    embeddingModel: text("embedding_model").notNull(),
    dimensions: integer("dimensions").notNull(),
    /**
     * HNSW candidate list size (`hnsw.ef_search`) for the dataset's searches, measured by
     * `calibrateEfSearch` on its own graph; null until measured (the model family's default
     * applies, `vector-search-tuning.ts`). The calibration updates only these six columns,
     * never `id`: its UPDATE takes `FOR NO KEY UPDATE`, which does not conflict with writers'
     * `FOR KEY SHARE` (packages/db/CONCURRENCY.md).
     */
    efSearch: integer("ef_search"),
    /** recall@10 measured at `ef_search` against exact search, in [0, 1] */
    efSearchRecall: real("ef_search_recall"),
    /** vectors in the dataset's graph when it was measured */
    efSearchRows: integer("ef_search_rows"),
    efSearchMeasuredAt: timestamp("ef_search_measured_at", { withTimezone: true, mode: "date" }),
    /**
     * What the measurement's queries were: the dataset's own recent searches
     * (`search_query_samples`) or, until it has enough of them, phrases of its stored texts.
     * Null until measured. A measurement on phrases is repeated once enough searches are kept.
     */
    efSearchQueries: text("ef_search_queries").$type<CalibrationQueries>(),
    /**
     * How many queries the measurement ranked: its confidence grows with them, so a dataset
     * measured on its searches is measured again once it keeps twice as many (up to the ring
     * of `search_query_samples`). Null until measured, and for measurements made before it was
     * recorded.
     */
    efSearchQueryCount: integer("ef_search_query_count"),
    /**
     * The HNSW build parameters of the dataset's graph (`m`, `ef_construction`), chosen by
     * its embedding model's family when it is created (`vector-search-tuning.ts`). Datasets
     * created before they were chosen have pgvector's defaults, 16 and 64, which their
     * graphs were built with.
     */
    graphM: integer("graph_m").notNull().default(16),
    graphEfConstruction: integer("graph_ef_construction").notNull().default(64),
    /**
     * The generation of graph vectors the dataset's searches walk its graph for: its graph is
     * the partial HNSW index over `indexed_vectors.graph_generation <= graph_generation`, and
     * searches rank any newer vectors exactly. A bulk build moves the backlog in as the next
     * generation, which the serving graph does not take, builds the next graph beside it, and
     * then advances this (`quarry_serve_vector_graph`, migration `vector_graph_generations`):
     * the old graph serves until the new one is valid (docs/indexing.md#deferred-vector-indexing).
     * Datasets whose graph predates generations (an index with no predicate) are at 0.
     */
    graphGeneration: integer("graph_generation").notNull().default(0),
    /**
     * How the dataset's graphs hold its vectors (`VectorGraphEncoding`). Datasets created before
     * it was chosen have the expression their graphs were built on: `vector` up to 2,000
     * dimensions, `halfvec_unnormalized` above.
     */
    graphEncoding: text("graph_encoding").$type<VectorGraphEncoding>().notNull().default("vector"),
    createdAt: createdAt(),
  },
  (t) => [index("datasets_project_created_idx").on(t.projectId, t.createdAt, t.id)],
);
