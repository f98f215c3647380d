import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { queryRows } from "./query-rows.ts";

/**
 * Rows moved from the backlog into the graph per statement. Each statement holds the embedded
 * database (one session) for its whole run, ~3 ms per row there: 200 rows keep other requests'
 * wait under a second.
 */
export const VECTOR_INDEX_BATCH = 200;

export interface VectorIndexProgress {
  /** rows moved into the dataset's graph by this call */
  indexed: number;
  /** rows still waiting in the backlog afterwards */
  pending: number;
}

/**
 * Moves up to `maxRows` of a dataset's backlog into its HNSW graph, oldest rows first, in
 * statements of `VECTOR_INDEX_BATCH` rows. Each statement takes its rows off the backlog and
 * copies their current embeddings into `indexed_vectors` at once, so a crash between
 * statements loses nothing and a repeated or concurrent call moves nothing twice (`SKIP
 * LOCKED`: concurrent indexers of one dataset take different rows).
 */
export async function indexVectorBacklog(
  db: Database,
  datasetId: string,
  maxRows: number,
): Promise<VectorIndexProgress> {
  let indexed = 0;
  while (indexed < maxRows) {
    const take = Math.min(VECTOR_INDEX_BATCH, maxRows - indexed);
    const [moved] = await queryRows<{ taken: number }>(
      db,
      sql`WITH taken AS (
          DELETE FROM vector_backlog b
          WHERE b.dataset_id = ${datasetId} AND b.row_id IN (
            SELECT row_id FROM vector_backlog WHERE dataset_id = ${datasetId}
            ORDER BY row_id LIMIT ${take}::int FOR UPDATE SKIP LOCKED)
          RETURNING b.row_id
        ),
        copied AS (
          INSERT INTO indexed_vectors (row_id, dataset_id, embedding)
          SELECT r.id, r.dataset_id, r.embedding
          FROM taken t JOIN rows r ON r.id = t.row_id
          WHERE r.dataset_id = ${datasetId} AND r.embedding IS NOT NULL
          ON CONFLICT (row_id) DO UPDATE SET dataset_id = excluded.dataset_id, embedding = excluded.embedding
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM taken)::int AS taken, (SELECT count(*) FROM copied)::int AS copied`,
    );
    const taken = Number(moved?.taken ?? 0);
    indexed += taken;
    if (taken < take) break;
  }
  return { indexed, pending: await pendingVectorRows(db, datasetId) };
}

/** How many of a dataset's rows wait for its graph (searched exactly until then). */
export async function pendingVectorRows(db: Database, datasetId: string): Promise<number> {
  const [row] = await queryRows<{ pending: number | string }>(
    db,
    sql`SELECT count(*)::int AS pending FROM vector_backlog WHERE dataset_id = ${datasetId}`,
  );
  return Number(row?.pending ?? 0);
}
