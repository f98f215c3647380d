import type { DatasetRecord } from "@quarry/core";
import type pg from "pg";

type VectorGraphEncoding = DatasetRecord["graphEncoding"];

/** What E2's statement names of a dataset's graph beside the dataset. */
export interface ServingGraph {
  /** the generation its searches walk (`datasets.graph_generation`, migration `0027`) */
  graphGeneration: number;
  /** the expression its graphs index (`datasets.graph_encoding`, migration `0030`) */
  graphEncoding: VectorGraphEncoding;
}

/**
 * A dataset's serving graph as E2's statement names it: a bench that renders that statement
 * for its raw-SQL baseline or its query plans reads it from the database, as the service does.
 */
export async function servingGraph(db: pg.Client, datasetId: string): Promise<ServingGraph> {
  const found = await db.query<{ generation: number; encoding: VectorGraphEncoding }>(
    "SELECT graph_generation AS generation, graph_encoding AS encoding FROM datasets WHERE id = $1",
    [datasetId],
  );
  const row = found.rows[0];
  if (!row) throw new Error(`dataset ${datasetId} not found`);
  return { graphGeneration: Number(row.generation), graphEncoding: row.encoding };
}
