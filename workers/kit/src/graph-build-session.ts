import { Pool, type PoolClient } from "@neondatabase/serverless";
import type { GraphBuildSession } from "@quarry/core";

/**
 * A bulk graph build's statements may run for minutes (an HNSW build over 100k vectors: about
 * a minute on a 2-core machine), far past DATABASE_TIMEOUT_SECONDS, which is for a database that
 * stopped answering. Their deadline is the Queue consumer's own wall-clock limit (15 minutes).
 */
export const GRAPH_BUILD_TIMEOUT_MS = 14 * 60 * 1000;

/**
 * Memory for building a graph in one pass. pgvector builds in memory while the graph fits in
 * `maintenance_work_mem` and inserts row by row after that (as slow as growing it); the server's
 * default (64 MB) holds ~30k 384-dimension vectors.
 */
export const GRAPH_BUILD_MEMORY = "512MB";

/**
 * A build runs in one process (no parallel maintenance workers), as a row-by-row indexer does:
 * with the server's default of two workers it took every core from the dataset's writers and
 * searches while it ran (E11 into a dataset being built dropped to half its rate, 2 cores).
 */
export const GRAPH_BUILD_PARALLEL_WORKERS = 0;

export interface GraphBuildSessionHandle {
  session: GraphBuildSession;
  /** Ends the connection (if one was opened); call it once the batch is done. */
  close(): Promise<void>;
}

/**
 * The session for a bulk graph build (core `indexVectors`): one connection of its
 * own over WebSocket (its statements cannot run in a transaction, and Neon's SQL over HTTP has a
 * request deadline), opened on the first statement, with `GRAPH_BUILD_TIMEOUT_MS` per
 * statement. The driver's settings (the local stack's proxy) are the ones `openDatabase` made.
 */
export function openGraphBuildSession(connectionString: string): GraphBuildSessionHandle {
  const pool = new Pool({
    connectionString,
    max: 1,
    connectionTimeoutMillis: 30_000,
    query_timeout: GRAPH_BUILD_TIMEOUT_MS,
  });
  pool.on("error", () => {});
  let client: Promise<PoolClient> | undefined;
  const connected = () => {
    client ??= pool.connect().then(async (opened) => {
      // Session-wide: these statements cannot run in a transaction, so SET LOCAL does not
      // apply. The connection is this build's alone and ends with it.
      await opened.query(`SET maintenance_work_mem = '${GRAPH_BUILD_MEMORY}'`);
      await opened.query(`SET max_parallel_maintenance_workers = ${GRAPH_BUILD_PARALLEL_WORKERS}`);
      return opened;
    });
    return client;
  };
  return {
    session: {
      async execute(statement) {
        await (await connected()).query(statement);
      },
    },
    async close() {
      const opened = client && (await client.catch(() => undefined));
      // Behind a transaction-mode pooler the server session outlives this client.
      await opened?.query("RESET maintenance_work_mem").catch(() => {});
      await opened?.query("RESET max_parallel_maintenance_workers").catch(() => {});
      opened?.release(true);
      await pool.end();
    },
  };
}
