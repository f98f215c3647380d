import pg from "pg";
import { round } from "./stats.ts";
import type { Target } from "./target.ts";

/**
 * What the database's busy backends were doing, sampled from `pg_stat_activity` every
 * `everyMs` while a run lasts: running (no wait event: on a core, or waiting for one) or
 * waiting on a named event — a lock (`Lock:*`), a shared-memory latch (`LWLock:*`), the WAL's
 * flush (`IO:WALSync`). The statement accounts (statements.ts) say where the time went; this
 * says whether it went into work or into queues, which is what decides between making the
 * work cheaper and redesigning who waits for whom. Native only: PGlite runs one statement at
 * a time, so nothing on it ever waits for another backend.
 */
export type WaitReport =
  | {
      available: true;
      every_ms: number;
      /** sampling rounds taken */
      samples: number;
      /** busy backends per round, on average */
      active_backends_mean: number;
      /** share of the busy backends' samples waiting on a heavyweight lock (`Lock:*`) */
      lock_share: number;
      waits: {
        /** `running`, or `wait_event_type:wait_event` */
        wait: string;
        /** backend samples in this state */
        samples: number;
        /** of all busy backends' samples */
        share: number;
        /** the statements most often seen in this state, most frequent first */
        statements: { samples: number; query: string }[];
      }[];
    }
  | { available: false; reason: string };

const QUERY_CHARS = 80;
const STATEMENTS_PER_WAIT = 3;

export function sampleDatabaseWaits(
  target: Pick<Target, "databaseUrl" | "sessionProfile">,
  everyMs = 100,
) {
  // Why there is no report, as in statements.ts: set before the start, or by a failed query.
  let missing: string | undefined = target.sessionProfile
    ? "PGlite runs one statement at a time: no backend waits for another"
    : !target.databaseUrl
      ? "no database URL to ask"
      : undefined;
  let client: pg.Client | undefined;
  let stopped = false;
  let loop: Promise<void> = Promise.resolve();
  let rounds = 0;
  let busy = 0;
  const tally = new Map<string, { samples: number; statements: Map<string, number> }>();

  const sampleOnce = async (c: pg.Client) => {
    const { rows } = await c.query<{ wait: string; query: string }>(
      `SELECT coalesce(wait_event_type || ':' || wait_event, 'running') AS wait,
              left(regexp_replace(query, '\\s+', ' ', 'g'), ${QUERY_CHARS}) AS query
       FROM pg_stat_activity
       WHERE state = 'active' AND backend_type = 'client backend'
         AND pid <> pg_backend_pid() AND datname = current_database()`,
    );
    rounds++;
    busy += rows.length;
    for (const row of rows) {
      const entry = tally.get(row.wait) ?? { samples: 0, statements: new Map() };
      entry.samples++;
      entry.statements.set(row.query, (entry.statements.get(row.query) ?? 0) + 1);
      tally.set(row.wait, entry);
    }
  };

  return {
    async start(): Promise<void> {
      if (missing || !target.databaseUrl) return;
      client = new pg.Client({ connectionString: target.databaseUrl });
      client.on("error", () => {});
      try {
        await client.connect();
      } catch (error) {
        missing = `pg_stat_activity: ${(error as Error).message}`;
        client = undefined;
        return;
      }
      const c = client;
      loop = (async () => {
        while (!stopped) {
          const next = performance.now() + everyMs;
          try {
            await sampleOnce(c);
          } catch (error) {
            missing = `pg_stat_activity: ${(error as Error).message}`;
            return;
          }
          await new Promise((resolve) =>
            setTimeout(resolve, Math.max(0, next - performance.now())),
          );
        }
      })();
    },
    async stop(): Promise<WaitReport> {
      stopped = true;
      await loop;
      await client?.end().catch(() => {});
      if (missing) return { available: false, reason: missing };
      if (!client) return { available: false, reason: "not started" };
      const waits = [...tally]
        .map(([wait, entry]) => ({
          wait,
          samples: entry.samples,
          share: busy > 0 ? round(entry.samples / busy, 3) : 0,
          statements: [...entry.statements]
            .sort((a, b) => b[1] - a[1])
            .slice(0, STATEMENTS_PER_WAIT)
            .map(([query, samples]) => ({ samples, query })),
        }))
        .sort((a, b) => b.samples - a.samples);
      const locked = waits.filter((w) => w.wait.startsWith("Lock:"));
      return {
        available: true,
        every_ms: everyMs,
        samples: rounds,
        active_backends_mean: rounds > 0 ? round(busy / rounds, 2) : 0,
        lock_share: busy > 0 ? round(locked.reduce((s, w) => s + w.samples, 0) / busy, 3) : 0,
        waits,
      };
    },
  };
}
