import { type Database, keywordDatasets } from "@quarry/db";
import { eq, type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";

/**
 * A dataset's search structures, created and dropped with it (inside the caller's
 * transaction): its keyword statistics row, which the row triggers keep up to date, and its
 * vector graph — its own partition of `indexed_vectors` with an HNSW index (cosine) over
 * `embedding` cast to the dataset's dimensions, built with the dataset's `m` and
 * `ef_construction`. Per-dataset graphs keep a small dataset's searches independent of a large
 * neighbour and let datasets of different dimensions share one column; per-dataset partitions
 * keep a statement on one dataset's graph from paying for every other dataset's
 * (docs/indexing.md#vector-search). The DDL lives in SQL functions (migration
 * `vector_graph_partitions`) so identifiers and literals are quoted by Postgres.
 * Triggers and functions: packages/db/README.md.
 */
export async function createSearchIndexes(
  db: Database,
  dataset: Pick<DatasetRecord, "id" | "dimensions" | "graphM" | "graphEfConstruction">,
): Promise<void> {
  await db.insert(keywordDatasets).values({ datasetId: dataset.id }).onConflictDoNothing();
  await db.execute(
    sql`select quarry_create_vector_graph(${dataset.id}, ${dataset.dimensions}::int,
      ${dataset.graphM}::int, ${dataset.graphEfConstruction}::int)`,
  );
}

/**
 * Removes the statistics first: the row triggers skip datasets without them, so deleting the
 * dataset's rows afterwards costs no statistics work.
 */
export async function dropKeywordStatistics(db: Database, datasetId: string): Promise<void> {
  await db.delete(keywordDatasets).where(eq(keywordDatasets.datasetId, datasetId));
}

/**
 * Drops the dataset's partition of `indexed_vectors` with its graph. Call it last in the
 * transaction: it holds every search and indexer off `indexed_vectors` until the commit.
 */
export async function dropVectorGraph(db: Database, datasetId: string): Promise<void> {
  await db.execute(sql`select quarry_drop_vector_graph(${datasetId})`);
}

/** pgvector's HNSW takes `vector` up to 2,000 dimensions and `halfvec` up to 4,000. */
const MAX_VECTOR_INDEX_DIMENSIONS = 2000;

/**
 * The indexed expression for a dataset, exactly as `quarry_vector_expression` builds it:
 * a query must repeat it for the planner to use the index, and name the dataset
 * (`dataset_id = …`) for the planner to look at its partition only.
 */
export function vectorExpression(dimensions: number, column = "embedding"): SQL {
  return sql.raw(`${column}::${vectorType(dimensions)}`);
}

/** `vector(384)`; `halfvec(3072)` above HNSW's limit for full precision. */
export function vectorType(dimensions: number): string {
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new Error(`invalid dimensions ${dimensions}`);
  }
  return dimensions <= MAX_VECTOR_INDEX_DIMENSIONS
    ? `vector(${dimensions})`
    : `halfvec(${dimensions})`;
}
