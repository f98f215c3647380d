import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { queryRows } from "./query-rows.ts";
import {
  foldPendingVectorRows,
  indexVectorBacklog,
  moveBacklogRows,
  pendingVectorRows,
  type VectorIndexProgress,
} from "./vector-backlog.ts";

/**
 * A database session for the statements of a bulk graph build, which cannot run in a
 * transaction (`CREATE INDEX CONCURRENTLY`, `DROP INDEX CONCURRENTLY`) and may run for minutes,
 * and for the backlog's `VACUUM` (`reclaimVectorBacklog`). The runtime opens it (the ingest
 * worker: a connection of its own with a longer deadline).
 */
export interface GraphBuildSession {
  execute(statement: string): Promise<void>;
}

/** How an indexer may build a dataset's graph in bulk; absent or `minRows` 0: never. */
export interface VectorGraphBuilds {
  /**
   * A backlog of at least this many rows, and at least half as many as the graph holds, is built
   * in bulk (VECTOR_GRAPH_BULK_MIN_ROWS, `BULK_BUILD_GROWTH`).
   */
  minRows: number;
  session: GraphBuildSession;
}

/** See `quarry_vector_graph_state` (migration `0018`). */
export type VectorGraphState = "valid" | "building" | "invalid" | "missing";

interface GraphStatements {
  graph: VectorGraphState;
  build_sql: string;
  drop_sql: string;
  analyze_sql: string;
}

export interface VectorIndexing extends VectorIndexProgress {
  /** the graph afterwards: only a `valid` one is searched through (and may be calibrated) */
  graph: VectorGraphState;
  /** whether this call built the graph in bulk */
  bulk: boolean;
}

/** The least backlog, as a share of the graph's rows, that a bulk build rebuilds the graph for. */
export const BULK_BUILD_GROWTH = 0.5;

/** Backlog rows per statement while the partition has no graph: cheap, so larger. */
export const BULK_MOVE_BATCH = 5000;

/**
 * Moves a dataset's backlog into its graph: a bounded part of it, a row at a time into the
 * graph (`indexVectorBacklog`), or, when `builds` allows it and the backlog is large, all of it
 * at once by a bulk build (`buildInBulk`). A graph a bulk build left unfinished
 * (dropped, or half built by a session that ended) is built first. A graph another indexer is
 * building is left to it: nothing moves.
 */
export async function indexVectors(
  db: Database,
  datasetId: string,
  options: { maxRows: number; builds?: VectorGraphBuilds | undefined },
): Promise<VectorIndexing> {
  const builds = options.builds;
  if (builds && builds.minRows > 0) {
    const state = await graphStatements(db, datasetId);
    // A deleted dataset: nothing to index.
    if (!state) return { indexed: 0, pending: 0, graph: "missing", bulk: false };
    if (state.graph === "building") {
      return {
        indexed: 0,
        pending: await pendingVectorRows(db, datasetId),
        graph: "building",
        bulk: false,
      };
    }
    if (state.graph !== "valid" || (await worthBuildingInBulk(db, datasetId, builds.minRows))) {
      return buildInBulk(db, builds.session, datasetId, state);
    }
  }
  return {
    ...(await indexVectorBacklog(db, datasetId, options.maxRows)),
    graph: "valid",
    bulk: false,
  };
}

/**
 * A bulk build pays for itself when the backlog is large and at least `BULK_BUILD_GROWTH` of the
 * graph: rebuilding graph and backlog (~0.5 ms a row) then costs less than growing the graph by
 * the backlog (~4 ms a row, 100k rows of 384 dimensions). Not for a smaller share: while the
 * graph is rebuilt every row of the partition is ranked exactly by each search (as the
 * backlog's are), so a large graph is not dropped for a few more rows.
 */
async function worthBuildingInBulk(
  db: Database,
  datasetId: string,
  minRows: number,
): Promise<boolean> {
  const pending = await pendingVectorRows(db, datasetId);
  if (pending < minRows) return false;
  const [graph] = await queryRows<{ rows: number | string }>(
    db,
    sql`SELECT count(*)::int AS rows FROM indexed_vectors WHERE dataset_id = ${datasetId}`,
  );
  return pending >= BULK_BUILD_GROWTH * Number(graph?.rows ?? 0);
}

/**
 * Builds a dataset's graph in one pass over all its vectors:
 * 1. drops the graph (`DROP INDEX CONCURRENTLY`, which waits for the searches using it);
 * 2. moves the whole backlog into the partition, with the same statement as a row-at-a-time
 *    indexer (`moveBacklogRows`, exact under concurrent writers), now cheap: no graph to grow;
 * 3. builds the graph (`CREATE INDEX CONCURRENTLY`): searches, row writes and indexers go on
 *    meanwhile, and rows moved during the build join the graph as it finishes;
 * 4. analyzes the partition, whose size changed at once.
 * Until the graph is valid, searches rank the partition's rows exactly. A build cut short
 * leaves the graph missing or invalid, which the next indexer of the dataset sees
 * (`quarry_vector_graph_state`) and builds again; two indexers starting at once both move rows
 * (each skips what the other holds), and the second `CREATE INDEX … IF NOT EXISTS` finds the
 * first's and returns.
 */
async function buildInBulk(
  db: Database,
  session: GraphBuildSession,
  datasetId: string,
  statements: GraphStatements,
): Promise<VectorIndexing> {
  if (statements.graph !== "missing") await session.execute(statements.drop_sql);
  await analyzeBacklog(session);
  let indexed = 0;
  for (;;) {
    const moved = await moveBacklogRows(db, datasetId, BULK_MOVE_BATCH);
    indexed += moved.taken;
    if (moved.picked < BULK_MOVE_BATCH) break;
  }
  await session.execute(statements.build_sql);
  await session.execute(statements.analyze_sql);
  const after = await graphStatements(db, datasetId);
  return {
    indexed,
    pending: await foldPendingVectorRows(db, datasetId),
    graph: after?.graph ?? "missing",
    bulk: true,
  };
}

/**
 * Gives the planner the backlog's size before it is moved in batches of `BULK_MOVE_BATCH`. A
 * bulk build follows a large upload, and autovacuum analyzes the backlog up to a minute after it
 * filled: until then the planner takes the dataset's entries, and the rows each move picked, for
 * one row each, and deletes the picked entries by scanning them all once per entry. After a
 * 20 MB CSV (41,681 waiting rows) the first move of 5,000 took ~30 s that way, holding the local
 * queue's one consumer. (An autovacuum of the table in the way gives way to it within a second.)
 */
async function analyzeBacklog(session: GraphBuildSession): Promise<void> {
  await session.execute("ANALYZE vector_backlog");
}

/** The dataset's graph state and its build statements; null when the dataset is gone. */
async function graphStatements(db: Database, datasetId: string): Promise<GraphStatements | null> {
  const [state] = await queryRows<GraphStatements>(
    db,
    sql`SELECT graph, build_sql, drop_sql, analyze_sql FROM quarry_vector_graph_state(${datasetId})`,
  );
  return state ?? null;
}

/** The state of a dataset's graph (`quarry_vector_graph_state`); null when it does not exist. */
export async function vectorGraphState(
  db: Database,
  datasetId: string,
): Promise<VectorGraphState | null> {
  return (await graphStatements(db, datasetId))?.graph ?? null;
}
