import type pg from "pg";

/**
 * The graph generation a dataset's searches walk (`datasets.graph_generation`, migration
 * `0027`): E2's statement names it, so a bench that renders that statement for its raw-SQL
 * baseline or its query plans reads it from the database, as the service does.
 */
export async function servedGeneration(db: pg.Client, datasetId: string): Promise<number> {
  const found = await db.query<{ generation: number }>(
    "SELECT graph_generation AS generation FROM datasets WHERE id = $1",
    [datasetId],
  );
  return Number(found.rows[0]?.generation ?? 0);
}
