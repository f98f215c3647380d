import type { PGlite } from "@electric-sql/pglite";
import { sessionLockFor } from "./pg-server/session-lock.ts";
import type { SessionProfile } from "./pg-server/session-profile.ts";

/**
 * Autovacuum for the embedded database. PGlite runs Postgres in single-user mode, where the
 * autovacuum launcher never starts: without this, planner statistics stay empty (filtered
 * and deep-offset queries get the plans of an empty table), the dead versions that every
 * keyword-statistics update and row replacement leaves are never reclaimed, and the
 * visibility map is never set (no index-only scans). Production Postgres (Neon) has its own
 * autovacuum; only the local stack uses this.
 *
 * PGlite has one session, so maintenance blocks every client while it runs. It therefore
 * waits until the database has been idle for `idleMs`, takes the shared session like a
 * client connection would, and works one table per turn so a client that arrives meanwhile
 * waits for one table at most (ANALYZE of 100k rows takes about a second). Under steady
 * traffic the database is never idle, so the dead row versions of small tables are reclaimed
 * anyway, every `busyEveryMs`, as autovacuum would: a queue-like table (`vector_backlog`,
 * whose rows are deleted as the graph takes them) otherwise keeps every dead index entry, and
 * each search that reads it steps over all of them (30k rows after a bulk load: E2 19.4 →
 * 15.7 ms and GET dataset 9.0 → 5.6 ms once vacuumed).
 */
export interface MaintenanceOptions {
  /** quiet time before maintenance may take the session (default 2000 ms) */
  idleMs?: number;
  /** how often to look (default 1000 ms) */
  pollMs?: number;
  /** under steady traffic, how often small tables' dead versions are reclaimed (5000 ms) */
  busyEveryMs?: number;
  /** "small": data and indexes under this many bytes (default 16 MiB: milliseconds to vacuum) */
  busyMaxBytes?: number;
  log?: (line: string) => void;
  /** where the session's time goes: maintenance's statements are added to it */
  profile?: SessionProfile;
}

export interface Maintenance {
  /** Runs every due task now (waiting for the session, not for idleness); returns what ran. */
  runDue(): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Live rows from which a table whose statistics record pages but no rows is analyzed even
 * under traffic. The planner scales a table's recorded rows per page by its current size, so
 * statistics taken of a page with no live rows (a queue just emptied: `vector_backlog` after
 * the first uploads' vectors joined the graph) call it empty however much it then grows, until
 * the next ANALYZE, which under a bulk load only came once the load was over. Meanwhile each
 * join to it was planned for one row: the vector indexer's move, planned so, took 26 s per 200
 * rows of a 41k-row backlog. One ANALYZE (a sample of at most 30k rows) corrects the density,
 * and from then on the estimate follows the table's size.
 */
const COUNTED_EMPTY_MIN_ROWS = 500;

// Postgres's own autovacuum defaults (autovacuum_*_threshold and *_scale_factor). A
// partitioned table (`indexed_vectors`, one partition per dataset) is left out, as autovacuum
// leaves it: its partitions are tables of their own here, and ANALYZE of the parent, which
// samples the whole tree, never gives it a row count, so it would be due on every turn.
const DUE_TASKS = `
  SELECT format('%I', s.relname) AS name,
         c.reltuples < 0
           OR s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) AS analyze,
         s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) AS dead,
         s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) AS inserted,
         c.reltuples = 0 AND c.relpages > 0 AND s.n_live_tup > ${COUNTED_EMPTY_MIN_ROWS}
           AS counted_empty,
         pg_total_relation_size(s.relid)::float8 AS bytes
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname = 'public' AND c.relkind <> 'p'
  ORDER BY s.relname`;

interface DueTask {
  name: string;
  analyze: boolean;
  /** vacuum due for its dead row versions */
  dead: boolean;
  /** vacuum due for rows inserted since the last one (to set the visibility map) */
  inserted: boolean;
  /** statistics of no rows on pages that now hold many (`COUNTED_EMPTY_MIN_ROWS`) */
  counted_empty: boolean;
  bytes: number;
}

export function startEmbeddedMaintenance(
  db: PGlite,
  options: MaintenanceOptions = {},
): Maintenance {
  const idleMs = options.idleMs ?? 2000;
  const busyEveryMs = options.busyEveryMs ?? 5000;
  const busyMaxBytes = options.busyMaxBytes ?? 16 * 1024 * 1024;
  let lastBusyTurn = Date.now();
  const log = options.log ?? (() => {});
  const lock = sessionLockFor<unknown>(db);
  // What holds the session while maintenance runs, for whoever asks why it is busy (a test's
  // hang diagnosis reads the lock's owner).
  const owner: { name: string; statement?: string; since?: string } = { name: "maintenance" };
  let stopped = false;
  let running: Promise<string[]> | undefined;
  let lastGrants = lock.grants;
  let quietSince = Date.now();

  /** Holds the shared session for one statement (or query), as a client would. */
  async function withSession<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (!(await lock.acquire(owner))) return undefined;
    try {
      return await work();
    } finally {
      lock.release(owner);
    }
  }

  /**
   * `busy`: only dead versions of small tables are reclaimed (a plain VACUUM, milliseconds),
   * and statistics that call a table empty are corrected (`COUNTED_EMPTY_MIN_ROWS`); other
   * statistics and insert-driven vacuums wait for idleness, as they did before, so a bulk
   * load is not interrupted to re-analyze the tables it is filling.
   */
  async function runDue(
    shouldContinue: () => boolean = () => true,
    busy = false,
  ): Promise<string[]> {
    const done: string[] = [];
    const due =
      (await withSession(async () => {
        // Every client shares this one session, whose statistics are flushed lazily (at most
        // once a second): flush them so the counts include the latest writes.
        await db.query("SELECT pg_stat_force_next_flush()");
        return (await db.query<DueTask>(DUE_TASKS)).rows;
      })) ?? [];
    for (const task of due) {
      if (stopped || !shouldContinue()) break;
      const statement = busy
        ? task.dead && task.bytes <= busyMaxBytes
          ? `VACUUM ${task.name}` // which counts the rows too
          : task.counted_empty
            ? `ANALYZE ${task.name}`
            : undefined
        : task.dead || task.inserted
          ? `VACUUM (ANALYZE) ${task.name}`
          : task.analyze
            ? `ANALYZE ${task.name}`
            : undefined;
      if (!statement) continue;
      const started = Date.now();
      await withSession(async () => {
        owner.statement = statement;
        owner.since = new Date().toISOString();
        const ran = performance.now();
        try {
          await db.exec(statement);
        } finally {
          owner.statement = undefined;
          owner.since = undefined;
          options.profile?.record(statement, performance.now() - ran);
        }
      });
      done.push(statement);
      log(`[maintenance] ${statement} (${Date.now() - started} ms)`);
    }
    return done;
  }

  const single = (shouldContinue?: () => boolean, busy?: boolean) => {
    running ??= runDue(shouldContinue, busy).finally(() => {
      running = undefined;
      // Our own turns are not client activity.
      lastGrants = lock.grants;
      quietSince = Date.now();
    });
    return running;
  };

  const isQuiet = () =>
    lock.owner === undefined && lock.waiting === 0 && lock.grants === lastGrants;
  const timer = setInterval(() => {
    if (stopped || running) return;
    const report = (error: unknown) =>
      log(`[maintenance] failed: ${error instanceof Error ? error.message : String(error)}`);
    if (!isQuiet()) {
      lastGrants = lock.grants;
      quietSince = Date.now();
      if (Date.now() - lastBusyTurn >= busyEveryMs) {
        lastBusyTurn = Date.now();
        // Waits for the session like any client; small tables only, so a turn is short.
        single(undefined, true).catch(report);
      }
      return;
    }
    if (Date.now() - quietSince < idleMs) return;
    // Between tables, give way as soon as a client has asked for the session.
    single(() => lock.waiting === 0).catch(report);
  }, options.pollMs ?? 1000);
  timer.unref();

  return {
    async runDue() {
      await running?.catch(() => {});
      return single();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
