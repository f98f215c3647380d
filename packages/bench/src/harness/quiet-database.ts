import pg from "pg";
import { round, startTimer } from "./stats.ts";

/** How a wait for a quiet database went. */
export interface QuietDatabase {
  /** seconds waited */
  waited_s: number;
  /** nothing of what was waited for ran at the end (null: could not be read) */
  quiet: boolean | null;
}

const DEFAULT_TIMEOUT_MS = 240_000;

/** Background work on the database that a benchmark may wait out, and how to see it. */
interface BackgroundWork {
  /** what the progress lines call it */
  name: string;
  /** one row: how many are running (`busy`) and what they are (`what`) */
  sql: string;
}

const AUTOVACUUM: BackgroundWork = {
  name: "autovacuum",
  sql: `SELECT count(*)::int AS busy, string_agg(query, '; ') AS what FROM pg_stat_activity
        WHERE backend_type = 'autovacuum worker' AND datname = current_database()`,
};

/** Server-wide: a build in another database takes the same cores. */
const INDEX_BUILDS: BackgroundWork = {
  name: "index builds",
  sql: `SELECT count(*)::int AS busy,
               string_agg(d.datname || ': ' || p.phase, ', ') AS what
        FROM pg_stat_progress_create_index p JOIN pg_database d ON d.oid = p.datid`,
};

/**
 * Waits until no autovacuum worker runs on the database of `url` (at most `timeoutMs`). After a
 * bulk load, autovacuum vacuums and analyzes the new rows and flushes the full-text index's
 * pending entries for minutes; latencies measured meanwhile are those of a machine busy with
 * that, by up to twice the settled figures on two cores. A benchmark of steady-state latency
 * waits for it and says how long it waited.
 */
export function waitForQuietDatabase(
  url: string,
  progress: (line: string) => void,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<QuietDatabase> {
  return waitForNone(url, AUTOVACUUM, progress, timeoutMs);
}

/**
 * Waits until no index is being built anywhere on the server of `url` (at most `timeoutMs`).
 * Stopping a stack does not stop a graph build its ingest worker started: the `CREATE INDEX
 * CONCURRENTLY` runs on in its backend until it ends (a 100k-row graph: minutes of one core on
 * a 2-core VM). A benchmark's own scratch database is dropped `WITH (FORCE)`, which ends its
 * builds, but a `pnpm dev` stopped on the same server leaves them running, and E11 from 4
 * clients measured beside one wrote 2,424 rows/s against 2,870 without.
 */
export function waitForIndexBuilds(
  url: string,
  progress: (line: string) => void,
  timeoutMs = 15 * 60_000,
): Promise<QuietDatabase> {
  return waitForNone(url, INDEX_BUILDS, progress, timeoutMs);
}

async function waitForNone(
  url: string,
  work: BackgroundWork,
  progress: (line: string) => void,
  timeoutMs: number,
): Promise<QuietDatabase> {
  const wall = startTimer();
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    let reported = 0;
    for (;;) {
      const { rows } = await client.query<{ busy: number; what: string | null }>(work.sql);
      const busy = rows[0]?.busy ?? 0;
      if (busy === 0 || wall() > timeoutMs) {
        const waited_s = round(wall() / 1000, 1);
        if (waited_s >= 1)
          progress(`database: ${work.name} ${busy ? "still running" : "done"} after ${waited_s} s`);
        return { waited_s, quiet: busy === 0 };
      }
      if (wall() - reported > 10_000) {
        progress(`database: waiting for ${work.name} (${rows[0]?.what ?? ""})`);
        reported = wall();
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  } catch (error) {
    progress(`database: ${work.name} not readable (${(error as Error).message})`);
    return { waited_s: round(wall() / 1000, 1), quiet: null };
  } finally {
    await client.end().catch(() => {});
  }
}
