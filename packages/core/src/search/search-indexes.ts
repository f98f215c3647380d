import { type Database, keywordDatasets } from "@quarry/db";
import { eq, type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";

/**
 * A dataset's search structures, created and dropped with it (inside the caller's
 * transaction): its keyword statistics row, which the row triggers keep up to date, and its
 * vector graph — its own partition of `indexed_vectors` with an HNSW index (cosine) over
 * `embedding` in the dataset's encoding (`graphVectorExpression`), built with the dataset's
 * `m` and `ef_construction`. Per-dataset graphs keep a small dataset's searches independent of
 * a large neighbour and let datasets of different dimensions share one column; per-dataset
 * partitions keep a statement on one dataset's graph from paying for every other dataset's
 * (docs/indexing.md#vector-search). The DDL lives in SQL functions (migration
 * `vector_graph_partitions`) so identifiers and literals are quoted by Postgres.
 * Triggers and functions: packages/db/README.md.
 */
export async function createSearchIndexes(
  db: Database,
  dataset: Pick<
    DatasetRecord,
    "id" | "dimensions" | "graphEncoding" | "graphM" | "graphEfConstruction"
  >,
): Promise<void> {
  await db.insert(keywordDatasets).values({ datasetId: dataset.id }).onConflictDoNothing();
  await db.execute(
    sql`select quarry_create_vector_graph(${dataset.id}, ${dataset.dimensions}::int,
      ${dataset.graphEncoding}::text, ${dataset.graphM}::int, ${dataset.graphEfConstruction}::int)`,
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

/**
 * A dataset's graph expression of `column`, exactly as `quarry_vector_graph_expression` builds
 * it for its encoding: a query must repeat it for the planner to use the index, and name the
 * dataset (`dataset_id = …`) for the planner to look at its partition only.
 */
export function graphVectorExpression(dataset: GraphShape, column = "embedding"): SQL {
  return sql.raw(graphVectorText(dataset, column));
}

/**
 * `column` in full precision (`vector(384)`), whatever the graph's encoding: the distances a
 * search reports and ranks on, and the exact rankings (backlog, filters, calibration), are
 * computed in it. `vector` holds up to 16,000 dimensions; only its HNSW index stops at 2,000.
 */
export function exactVectorExpression(dimensions: number, column = "embedding"): SQL {
  return sql.raw(`${column}::${exactVectorType(dimensions)}`);
}

/** `vector(384)`. */
export function exactVectorType(dimensions: number): string {
  return `vector(${checkedDimensions(dimensions)})`;
}

type GraphShape = Pick<DatasetRecord, "dimensions" | "graphEncoding">;

function graphVectorText(dataset: GraphShape, column: string): string {
  const n = checkedDimensions(dataset.dimensions);
  switch (dataset.graphEncoding) {
    case "vector":
      return `${column}::vector(${n})`;
    case "halfvec":
      return `l2_normalize(${column}::vector(${n}))::halfvec(${n})`;
    case "halfvec_unnormalized":
      return `${column}::halfvec(${n})`;
  }
}

function checkedDimensions(dimensions: number): number {
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new Error(`invalid dimensions ${dimensions}`);
  }
  return dimensions;
}
