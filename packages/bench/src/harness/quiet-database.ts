import pg from "pg";
import { round, startTimer } from "./stats.ts";

/** How `waitForQuietDatabase` went. */
export interface QuietDatabase {
  /** seconds waited */
  waited_s: number;
  /** no autovacuum worker ran on the database at the end (null: could not be read) */
  quiet: boolean | null;
}

const DEFAULT_TIMEOUT_MS = 240_000;

/**
 * Waits until no autovacuum worker runs on the database of `url` (at most `timeoutMs`). After a
 * bulk load, autovacuum vacuums and analyzes the new rows and flushes the full-text index's
 * pending entries for minutes; latencies measured meanwhile are those of a machine busy with
 * that, by up to twice the settled figures on two cores. A benchmark of steady-state latency
 * waits for it and says how long it waited.
 */
export async function waitForQuietDatabase(
  url: string,
  progress: (line: string) => void,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<QuietDatabase> {
  const wall = startTimer();
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    let reported = 0;
    for (;;) {
      const { rows } = await client.query<{ workers: number; tables: string | null }>(
        `SELECT count(*)::int AS workers, string_agg(query, '; ') AS tables FROM pg_stat_activity
         WHERE backend_type = 'autovacuum worker' AND datname = current_database()`,
      );
      const busy = rows[0]?.workers ?? 0;
      if (busy === 0 || wall() > timeoutMs) {
        const waited_s = round(wall() / 1000, 1);
        if (waited_s >= 1)
          progress(`database: autovacuum ${busy ? "still running" : "done"} after ${waited_s} s`);
        return { waited_s, quiet: busy === 0 };
      }
      if (wall() - reported > 10_000) {
        progress(`database: waiting for autovacuum (${rows[0]?.tables ?? ""})`);
        reported = wall();
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  } catch (error) {
    progress(`database: autovacuum state not readable (${(error as Error).message})`);
    return { waited_s: round(wall() / 1000, 1), quiet: null };
  } finally {
    await client.end().catch(() => {});
  }
}
