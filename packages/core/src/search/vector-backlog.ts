import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { queryRows } from "./query-rows.ts";
import type { GraphBuildSession } from "./vector-graph-builds.ts";

/**
 * How long one move statement should take. Each holds the locks of the rows it moves, and on
 * the embedded database the one session, which every other request waits for: an API request
 * of three statements waits for up to three moves. The rows that fit vary with the machine and
 * the graph (an HNSW insert grows with it: ~1 ms a row on native PostgreSQL, 5 ms on PGlite
 * at 400 rows and more at 40k, on a slow day), so each move is sized by the last one's time,
 * not by a count: 200 rows a move held PGlite 1.2–1.9 s, and `/health` took up to 5 s while a
 * graph grew. Not much shorter: a move costs ~30 ms on PGlite whatever its rows (its plan, its
 * triggers), a sixth of a 200 ms move, which grew PGlite's graph 17 % slower (87 rows/s
 * against 105 with 200-row moves).
 */
export const VECTOR_MOVE_TARGET_MS = 300;

/** Rows in a call's first move, before any has been timed. */
export const VECTOR_MOVE_FIRST_ROWS = 50;

/** Bounds of a move's rows: statements of a few rows pay their fixed cost over and over. */
export const VECTOR_MOVE_MIN_ROWS = 10;
export const VECTOR_MOVE_MAX_ROWS = 500;

/**
 * The rows of the next move, after one of `rows` took `ms`: as many as `VECTOR_MOVE_TARGET_MS`
 * would take at that pace, at most twice as many as before (one quick move, its rows' pages
 * cached, does not set a pace for ten times as many), within the bounds.
 */
export function nextMoveRows(rows: number, ms: number): number {
  const atPace = Math.round((rows * VECTOR_MOVE_TARGET_MS) / Math.max(ms, 1));
  return Math.max(VECTOR_MOVE_MIN_ROWS, Math.min(VECTOR_MOVE_MAX_ROWS, 2 * rows, atPace));
}

export interface VectorIndexProgress {
  /** rows moved into the dataset's graph by this call */
  indexed: number;
  /** rows still waiting in the backlog afterwards */
  pending: number;
}

/**
 * Moves up to `maxRows` of a dataset's backlog into its HNSW graph, oldest rows first, in
 * statements of about `VECTOR_MOVE_TARGET_MS` each (`nextMoveRows`), timed by the database: a
 * move that waited for a connection or for PGlite's session first did not itself take longer,
 * and timed by the caller it would shrink the next one for it. `timeOf` reads a move's time
 * (tests give their own). Each statement takes its rows off the backlog and copies their
 * current embeddings into `indexed_vectors` at once, so a crash between statements loses
 * nothing and a repeated or concurrent call moves nothing twice.
 *
 * Exact under concurrent writers (packages/db/CONCURRENCY.md): the statement locks each row it moves
 * (`FOR SHARE OF r`), so an update or delete of that row waits until the move commits and its
 * trigger then finds the row in the graph (and takes it out again); the embedding copied is the
 * row's latest. Rows a writer holds, and backlog entries another indexer holds, are skipped
 * (`SKIP LOCKED`), so the indexer never waits for a writer and never deadlocks with one.
 * The backlog is filled by triggers on `rows`: packages/db/README.md.
 */
export async function indexVectorBacklog(
  db: Database,
  datasetId: string,
  maxRows: number,
  timeOf: (move: BacklogMove) => number = (move) => move.ms,
): Promise<VectorIndexProgress> {
  let indexed = 0;
  let rows = VECTOR_MOVE_FIRST_ROWS;
  while (indexed < maxRows) {
    const take = Math.min(rows, maxRows - indexed);
    const moved = await moveBacklogRows(db, datasetId, take);
    indexed += moved.taken;
    if (moved.picked < take) break;
    rows = nextMoveRows(take, timeOf(moved));
  }
  if (indexed > 0) await analyzeNewGraph(db, datasetId);
  return { indexed, pending: await foldPendingVectorRows(db, datasetId) };
}

/**
 * Reclaims the space of the rows indexers took off the backlog, on a session outside any
 * transaction (the bulk builds' session: `VACUUM` cannot run in one), so that the rows written
 * next fill it instead of new pages. The backlog is a queue: every row a writer adds, an indexer
 * deletes, and searches rank whatever it holds exactly, page by page. Autovacuum looks at a
 * table at most once a minute, and until then the table only grew and each search stepped over
 * every page the moved rows left: in `pnpm bench load` ~6,000 waiting rows lay on 3,107 pages
 * (1,961 pages for 9,000 rows with this). Vacuuming this one small table takes milliseconds.
 * It never waits: `SKIP_LOCKED` skips it while another vacuum (an indexer's, autovacuum) holds
 * the table, and `TRUNCATE false` leaves giving empty pages back to autovacuum, because cutting
 * them off needs the table to itself for a moment, which busy searches never leave free: vacuum
 * then retries for up to 5 s.
 */
export async function reclaimVectorBacklog(session: GraphBuildSession): Promise<void> {
  await session.execute("VACUUM (SKIP_LOCKED, TRUNCATE false) vector_backlog");
}

/** What one move did: rows locked (`picked`), taken off the backlog, and its own duration. */
export interface BacklogMove {
  picked: number;
  taken: number;
  /**
   * the statement's time in the database, from its start to its end (not the time it waited
   * for a connection, or for the embedded database's one session, before it started)
   */
  ms: number;
}

/**
 * One statement of `indexVectorBacklog`: takes up to `take` of the dataset's oldest backlog rows
 * that nobody else holds off the backlog and copies their rows' current embeddings into the
 * dataset's partition of `indexed_vectors` as vectors of `generation`: by default the one the
 * dataset serves, so they join its graph; a bulk build's next one, which no serving graph takes
 * (`datasets.graph_generation`). `picked` is how many it locked, `taken` how many it took off
 * the backlog.
 */
export async function moveBacklogRows(
  db: Database,
  datasetId: string,
  take: number,
  generation?: number,
): Promise<BacklogMove> {
  // Read in the statement's snapshot. A build that serves its graph meanwhile loses nothing: its
  // graph takes the older generations' vectors too.
  // The picked entries are deleted by their tuple ids (a TID scan, whatever the statistics say),
  // which the row locks keep current until the statement ends. Deleted by a join to `picked`,
  // they were planned on the backlog's statistics, which lag behind a bulk load: a backlog
  // analyzed nearly empty (one page, no live rows) is taken for empty whatever its size, and the
  // join rescanned `picked` once per backlog entry, 200 × 41k rows, 26 s a statement on PGlite.
  // The oldest entries are found in the backlog's own key, and their rows by id. Joined on
  // `r.id = b.row_id`, the planner may take that order from `rows_pkey` instead and walk `rows`
  // from the dataset's first row beside the backlog, which statistics taken while most rows
  // waited make look cheap; but it walks every row moved before again (at 14k moved, 14k rows
  // and 41.6 ms for a move of 40 on PGlite, against 0.5 ms by id), a cost that grew with the
  // graph and, the moves being paced by time, shrank them. `+ 0` gives `rows` no such order.
  const into =
    generation === undefined
      ? sql`coalesce((SELECT d.graph_generation FROM datasets d WHERE d.id = ${datasetId}), 0)`
      : sql`${generation}::int`;
  const [moved] = await queryRows<{ picked: number; taken: number; ms: number }>(
    db,
    sql`WITH picked AS MATERIALIZED (
        SELECT b.ctid AS backlog_tid, b.row_id, r.embedding
        FROM vector_backlog b JOIN rows r ON r.id = b.row_id + 0 AND r.dataset_id = b.dataset_id
        WHERE b.dataset_id = ${datasetId}
        ORDER BY b.row_id LIMIT ${take}::int
        FOR UPDATE OF b SKIP LOCKED FOR SHARE OF r SKIP LOCKED
      ),
      taken AS (
        DELETE FROM vector_backlog b
        WHERE b.ctid = ANY (ARRAY(SELECT p.backlog_tid FROM picked p))
        RETURNING b.row_id
      ),
      copied AS (
        INSERT INTO indexed_vectors (row_id, dataset_id, embedding, graph_generation)
        SELECT p.row_id, ${datasetId}, p.embedding, ${into} FROM picked p
        WHERE p.embedding IS NOT NULL
        ON CONFLICT (dataset_id, row_id) DO UPDATE
          SET embedding = excluded.embedding, graph_generation = excluded.graph_generation
        RETURNING 1
      )
      SELECT counts.*,
             (1000 * extract(epoch FROM clock_timestamp() - statement_timestamp()))::float8 AS ms
      FROM (SELECT (SELECT count(*) FROM picked)::int AS picked,
                   (SELECT count(*) FROM taken)::int AS taken,
                   (SELECT count(*) FROM copied)::int AS copied
            OFFSET 0) counts`,
  );
  return {
    picked: Number(moved?.picked ?? 0),
    taken: Number(moved?.taken ?? 0),
    ms: Number(moved?.ms ?? 0),
  };
}

/**
 * Gives a dataset's partition of `indexed_vectors` its first statistics, and new ones when it
 * has outgrown them (twice the pages), or when they were taken over too few vectors to know
 * that the partition holds one dataset (a catalog lookup otherwise; migration 0029). Without
 * them the planner takes `dataset_id = …` to keep 0.5 % of the partition's rows and ranks them
 * all exactly instead of walking the graph; with a first sample of one vector, to keep one row
 * at any size, so a count of the partition's newer vectors read all of it. Autovacuum would
 * analyze it in time on native Postgres, but the embedded database's maintenance waits for a
 * quiet moment that a catching-up graph never leaves.
 */
async function analyzeNewGraph(db: Database, datasetId: string): Promise<void> {
  await db.execute(sql`SELECT quarry_analyze_new_vector_graph(${datasetId})`);
}

/**
 * How many of a dataset's rows wait for its graph (searched exactly until then): the sum of the
 * counts the backlog's trigger appended (`vector_backlog_counts`), a few small rows, rather than
 * a count of the backlog, whose every row carries an embedding.
 */
export async function pendingVectorRows(db: Database, datasetId: string): Promise<number> {
  const [row] = await queryRows<{ pending: number | string }>(
    db,
    sql`SELECT coalesce(sum(pending), 0)::bigint AS pending
        FROM vector_backlog_counts WHERE dataset_id = ${datasetId}`,
  );
  return Number(row?.pending ?? 0);
}

/**
 * `pendingVectorRows`, folding the dataset's appended counts into one row on the way
 * (`quarry_fold_vector_backlog_counts`: packages/db/README.md), so that the sum stays a few
 * rows long under a steady stream of writes. The indexer's reading after each move.
 */
export async function foldPendingVectorRows(db: Database, datasetId: string): Promise<number> {
  const [row] = await queryRows<{ pending: number | string }>(
    db,
    sql`SELECT quarry_fold_vector_backlog_counts(${datasetId}) AS pending`,
  );
  return Number(row?.pending ?? 0);
}
