import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { queryRows } from "./query-rows.ts";
import { newerVectors } from "./semantic-ranking.ts";
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
  /**
   * A build that is due waits while the dataset's newest waiting row is younger than this
   * (VECTOR_GRAPH_BULK_QUIET_MS, default `BULK_BUILD_QUIET_MS`); 0: builds at once.
   */
  quietMs?: number;
}

/**
 * How long a dataset must have gone without new rows before its graph is rebuilt in bulk.
 * Writes arrive in bursts (a client loading a dataset in batches); a build started inside one
 * takes a core from the writers for as long as it runs, and the rows written meanwhile soon
 * make the next build due, over the whole graph again: loading 100k rows, the rule above
 * rebuilds at 10k, 20k, 30k, 45k and 67k rows, ~270k rows built for a 100k graph. Four
 * clients writing 100-row E11 batches (native, 2-core VM) wrote 2,424 rows/s with the builds
 * and 2,870 with them put off.
 * Index-vectors messages come at most every 5 s per dataset and isolate
 * (`VectorIndexRequests`), so a stream of writes keeps the newest row younger than that.
 */
export const BULK_BUILD_QUIET_MS = 5_000;

/**
 * How long a due build waits for the writes to pause at most. Meanwhile nothing moves, so under a
 * steady stream of writes (rather than a burst) the backlog grows and every search ranks more of
 * it exactly; two minutes bound that. A burst of 100k rows from 4 clients lasts ~30 s on the
 * 2-core VM. (During the build searches rank the moved rows exactly, as they ranked the backlog,
 * until the new graph serves.)
 */
export const BULK_BUILD_MAX_WAIT_MS = 2 * 60_000;

/**
 * The graph searches walk, as `vector_index.graph` reports it: `valid` (the usual case, also
 * while the next one is built beside it); `building` while a build under way has no graph
 * serving beside it (a dataset's first build after an upgrade); `invalid` or `missing` when such
 * a build was cut short. See `quarry_vector_graph_state` (migrations `0018`, `0027`).
 */
export type VectorGraphState = "valid" | "building" | "invalid" | "missing";

/** The next generation's graph (`quarry_vector_graph_state`, migration `0027`). */
type NextGraphState = "building" | "valid" | "invalid" | "missing";

interface GraphStatements {
  /** the generation searches walk the graph for (`datasets.graph_generation`) */
  generation: number;
  graph: Exclude<VectorGraphState, "building">;
  /** the serving graph predates generations: it would take the next one's vectors too */
  legacy: boolean;
  next_graph: NextGraphState;
  /** vectors of a newer generation wait in the partition: a build under way or cut short */
  next_rows: boolean;
  build_sql: string;
  drop_serving_sql: string | null;
  drop_next_sql: string;
  /** older graphs a build cut short after serving its own left behind */
  drop_stale_sql: string[];
  analyze_sql: string;
}

export interface VectorIndexing extends VectorIndexProgress {
  /** the graph afterwards: only a `valid` one is searched through (and may be calibrated) */
  graph: VectorGraphState;
  /** whether this call built the graph in bulk */
  bulk: boolean;
  /**
   * A bulk build was due but the dataset is being written (`quietMs`): nothing moved; the
   * caller asks again later, or with `evenIfWritten` once it has waited long enough.
   */
  waitingForQuiet?: true;
}

/** The least backlog, as a share of the graph's rows, that a bulk build rebuilds the graph for. */
export const BULK_BUILD_GROWTH = 0.5;

/** Backlog rows per statement of a bulk build: no graph takes them, so cheap, and larger. */
export const BULK_MOVE_BATCH = 5000;

/**
 * Moves a dataset's backlog into its graph: a bounded part of it, a row at a time into the
 * graph (`indexVectorBacklog`), or, when `builds` allows it and the backlog is large, all of it
 * at once by a bulk build (`buildInBulk`). A bulk build left unfinished (its vectors moved,
 * its graph missing or half built by a session that ended) is finished first. A graph another
 * indexer is building is left to it: nothing moves.
 */
export async function indexVectors(
  db: Database,
  datasetId: string,
  options: {
    maxRows: number;
    builds?: VectorGraphBuilds | undefined;
    /** build a due graph even while the dataset is being written (a caller that waited long) */
    evenIfWritten?: boolean;
  },
): Promise<VectorIndexing> {
  const builds = options.builds;
  if (builds && builds.minRows > 0) {
    const state = await graphStatements(db, datasetId);
    // A deleted dataset: nothing to index.
    if (!state) return { indexed: 0, pending: 0, graph: "missing", bulk: false };
    if (state.next_graph === "building") {
      return {
        indexed: 0,
        pending: await pendingVectorRows(db, datasetId),
        graph: "building",
        bulk: false,
      };
    }
    // A build cut short is finished at once: until then every search ranks the vectors it moved
    // exactly (or, with no graph serving, the dataset's whole partition).
    if (state.graph !== "valid" || state.next_rows || state.next_graph !== "missing") {
      return buildInBulk(db, builds.session, datasetId, state);
    }
    const due = await bulkBuildDue(db, datasetId, builds.minRows);
    if (due.worthIt) {
      const quietMs = builds.quietMs ?? BULK_BUILD_QUIET_MS;
      if (!options.evenIfWritten && (await writtenWithin(db, datasetId, quietMs))) {
        return {
          indexed: 0,
          pending: due.pending,
          graph: "valid",
          bulk: false,
          waitingForQuiet: true,
        };
      }
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
 * the backlog (~4 ms a row, 100k rows of 384 dimensions). Not for a smaller share: a build
 * goes over the whole graph again, a core for minutes at 100k rows. Returns the backlog's size
 * too, which a build that waits reports.
 */
async function bulkBuildDue(
  db: Database,
  datasetId: string,
  minRows: number,
): Promise<{ worthIt: boolean; pending: number }> {
  const pending = await pendingVectorRows(db, datasetId);
  if (pending < minRows) return { worthIt: false, pending };
  const [graph] = await queryRows<{ rows: number | string }>(
    db,
    sql`SELECT count(*)::int AS rows FROM indexed_vectors WHERE dataset_id = ${datasetId}`,
  );
  return { worthIt: pending >= BULK_BUILD_GROWTH * Number(graph?.rows ?? 0), pending };
}

/**
 * Whether the dataset's newest waiting row was written less than `ms` ago, by the database's
 * clock (`rows.created_at` is its writer's transaction start): the backlog's newest entry by
 * its primary key, then that row by id.
 */
async function writtenWithin(db: Database, datasetId: string, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  const [row] = await queryRows<{ written: boolean }>(
    db,
    sql`SELECT EXISTS (
          SELECT 1 FROM rows r
          WHERE r.id = (SELECT max(b.row_id) FROM vector_backlog b WHERE b.dataset_id = ${datasetId})
            AND r.created_at > now() - ${ms}::int * interval '1 millisecond'
        ) AS written`,
  );
  return row?.written === true;
}

/**
 * Builds the dataset's next graph in one pass over all its vectors, beside the serving one:
 * 1. moves the whole backlog into the partition as the next generation, with the same statement
 *    as a row-at-a-time indexer (`moveBacklogRows`, exact under concurrent writers), cheap: the
 *    serving graph does not take that generation (a graph that predates generations would, so
 *    it is dropped first, `legacy`);
 * 2. builds the next graph over every vector up to that generation (`CREATE INDEX
 *    CONCURRENTLY`): searches, row writes and indexers go on meanwhile, and rows moved during
 *    the build, into either generation, join it as it finishes;
 * 3. analyzes the partition, whose size changed at once;
 * 4. serves the new graph once valid (`quarry_serve_vector_graph`) and drops the old one
 *    (`DROP INDEX CONCURRENTLY`, which waits for the searches still walking it).
 * Until step 4 searches walk the old graph and rank the moved vectors exactly, as they rank the
 * backlog. A build cut short leaves the moved vectors, and perhaps an invalid next graph, which
 * the next indexer of the dataset sees (`quarry_vector_graph_state`) and finishes; two indexers
 * starting at once both move rows (each skips what the other holds), the second `CREATE INDEX
 * … IF NOT EXISTS` finds the first's and returns, and only a valid graph is served, once.
 */
async function buildInBulk(
  db: Database,
  session: GraphBuildSession,
  datasetId: string,
  state: GraphStatements,
): Promise<VectorIndexing> {
  const next = state.generation + 1;
  for (const stale of state.drop_stale_sql) await session.execute(stale);
  if (state.legacy && state.drop_serving_sql) await session.execute(state.drop_serving_sql);
  if (state.next_graph === "invalid") await session.execute(state.drop_next_sql);
  await analyzeBacklog(session);
  let indexed = 0;
  for (;;) {
    const moved = await moveBacklogRows(db, datasetId, BULK_MOVE_BATCH, next);
    indexed += moved.taken;
    if (moved.picked < BULK_MOVE_BATCH) break;
  }
  await session.execute(state.build_sql);
  await session.execute(state.analyze_sql);
  const served = await serveGraph(db, datasetId, next);
  if (served && !state.legacy && state.drop_serving_sql) {
    await session.execute(state.drop_serving_sql);
  }
  const after = await graphStatements(db, datasetId);
  return {
    indexed,
    pending: await foldPendingVectorRows(db, datasetId),
    // `building`: another indexer's build of the same graph is under way (this one's `CREATE
    // INDEX … IF NOT EXISTS` returned at once); its caller looks again later.
    graph: !after ? "missing" : after.next_graph === "building" ? "building" : after.graph,
    bulk: true,
  };
}

/** Serves the dataset's graph of `generation` if it is valid and newer than the serving one. */
async function serveGraph(db: Database, datasetId: string, generation: number): Promise<boolean> {
  const [row] = await queryRows<{ served: boolean }>(
    db,
    sql`SELECT quarry_serve_vector_graph(${datasetId}, ${generation}::int) AS served`,
  );
  return row?.served === true;
}

/** What a caller is told of the graph: `building` while another's build is under way. */
function servingGraph(state: GraphStatements): VectorGraphState {
  if (state.next_graph === "building") return state.graph === "valid" ? "valid" : "building";
  return state.graph;
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
    sql`SELECT * FROM quarry_vector_graph_state(${datasetId})`,
  );
  return state ? { ...state, generation: Number(state.generation) } : null;
}

/** A dataset's graph as `vector_index` reports it; null when the dataset does not exist. */
export interface VectorGraphReport {
  /** the graph searches walk */
  graph: VectorGraphState;
  /** a new graph is being built beside it, or a build cut short waits to be finished */
  rebuilding: boolean;
}

/** The state of a dataset's graph (`quarry_vector_graph_state`); null when it does not exist. */
export async function vectorGraphState(
  db: Database,
  datasetId: string,
): Promise<VectorGraphReport | null> {
  const state = await graphStatements(db, datasetId);
  if (!state) return null;
  return {
    graph: servingGraph(state),
    rebuilding: state.next_graph !== "missing" || state.next_rows,
  };
}

/**
 * How many of a dataset's vectors a bulk build moved in for its next graph (`newerVectors`),
 * which searches rank exactly until that graph serves: 0 but during a build, or after one cut
 * short, and counting none costs next to nothing.
 */
export async function nextGraphRows(
  db: Database,
  dataset: Pick<DatasetRecord, "id" | "graphGeneration">,
): Promise<number> {
  const [row] = await queryRows<{ rows: number | string }>(
    db,
    sql`SELECT count(*)::int AS rows FROM indexed_vectors v WHERE ${newerVectors(dataset)}`,
  );
  return Number(row?.rows ?? 0);
}
