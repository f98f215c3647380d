import pg from "pg";
import { round } from "./stats.ts";
import type { Target } from "./target.ts";

/**
 * The database's own account of a run: the statements of the bench's database by total
 * execution time, from `pg_stat_statements` (statistics reset at `start`, read at `stop`).
 * Where the database's share of the CPU goes, statement by statement: with `track = top`, a
 * statement's time includes the triggers it fired. Needs the module preloaded
 * (`shared_preload_libraries`, as `pnpm db:native`'s clusters and Neon do) and a role that may
 * create the extension and reset its statistics; otherwise the report says why it is missing.
 * A started PGlite stack, which has no such module, gives its session's own account instead
 * (`track: "session"`: each statement's messages timed on the one session, triggers included).
 */
export type StatementReport =
  | {
      available: true;
      /**
       * `pg_stat_statements.track`: `top` counts a trigger's statements in the statement that
       * fired them; `all` also lists them on their own, so shares then add up to more than 1;
       * `session`: PGlite's session profile, which counts as `top` does
       */
      track: string;
      /** all statements of the database in the window */
      total_exec_s: number;
      calls: number;
      top: {
        calls: number;
        total_s: number;
        /** of the database's total execution time */
        share: number;
        mean_ms: number;
        /** rows returned or affected; null where not counted (the PGlite session's profile) */
        rows: number | null;
        /** the normalized text, whitespace collapsed, cut at QUERY_CHARS */
        query: string;
      }[];
    }
  | { available: false; reason: string };

const QUERY_CHARS = 240;
const THIS_DATABASE = "(SELECT oid FROM pg_database WHERE datname = current_database())";

/**
 * The statements of `target`'s database between `start` and `stop`. Only a started stack's
 * database is the bench's own: another (a running stack's, `BASE`) is left alone, as resetting
 * its statistics, or creating the extension in it, is not a bench's to do.
 */
export function trackStatements(
  target: Pick<Target, "databaseUrl" | "mode" | "sessionProfile">,
  top = 12,
) {
  const profile = target.sessionProfile;
  if (profile) {
    let before = profile.snapshot();
    return {
      async start(): Promise<void> {
        before = profile.snapshot();
      },
      async stop(): Promise<StatementReport> {
        return sessionReport(profile.since(before), top);
      },
    };
  }
  return trackStatStatements(target.databaseUrl, target.mode === "started", top);
}

function sessionReport(
  statements: { statement: string; calls: number; ms: number }[],
  top: number,
): StatementReport {
  const allMs = statements.reduce((sum, s) => sum + s.ms, 0);
  return {
    available: true,
    track: "session",
    total_exec_s: round(allMs / 1000, 1),
    calls: statements.reduce((sum, s) => sum + s.calls, 0),
    top: statements.slice(0, top).map((s) => ({
      calls: s.calls,
      total_s: round(s.ms / 1000, 2),
      share: allMs > 0 ? round(s.ms / allMs, 3) : 0,
      mean_ms: s.calls > 0 ? round(s.ms / s.calls, 2) : 0,
      rows: null,
      query: s.statement.slice(0, QUERY_CHARS),
    })),
  };
}

function trackStatStatements(databaseUrl: string | undefined, owned: boolean, top: number) {
  let client: pg.Client | undefined;
  let missing: string | undefined = !databaseUrl
    ? "no database URL to ask"
    : owned
      ? undefined
      : "not the bench's own database (BASE): its statistics are left alone";
  return {
    async start(): Promise<void> {
      if (!databaseUrl || missing) return;
      client = new pg.Client({ connectionString: databaseUrl });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        await client.query(`SELECT pg_stat_statements_reset(0, ${THIS_DATABASE}, 0)`);
      } catch (error) {
        missing = `pg_stat_statements: ${(error as Error).message}`;
        await client.end().catch(() => {});
        client = undefined;
      }
    },
    async stop(): Promise<StatementReport> {
      if (!client) return { available: false, reason: missing ?? "not started" };
      try {
        const { rows } = await client.query<{
          calls: string;
          total_ms: number | string;
          mean_ms: number | string;
          rows: string;
          query: string;
          all_ms: number | string;
          all_calls: string;
          track: string;
        }>(
          `SELECT calls, total_exec_time AS total_ms, mean_exec_time AS mean_ms, rows, query,
                  sum(total_exec_time) OVER () AS all_ms, sum(calls) OVER () AS all_calls,
                  current_setting('pg_stat_statements.track') AS track
           FROM pg_stat_statements WHERE dbid = ${THIS_DATABASE}
           ORDER BY total_exec_time DESC`,
        );
        const allMs = Number(rows[0]?.all_ms ?? 0);
        return {
          available: true,
          track: rows[0]?.track ?? "top",
          total_exec_s: round(allMs / 1000, 1),
          calls: Number(rows[0]?.all_calls ?? 0),
          top: rows.slice(0, top).map((r) => ({
            calls: Number(r.calls),
            total_s: round(Number(r.total_ms) / 1000, 2),
            share: allMs > 0 ? round(Number(r.total_ms) / allMs, 3) : 0,
            mean_ms: round(Number(r.mean_ms), 2),
            rows: Number(r.rows),
            query: r.query.replace(/\s+/g, " ").trim().slice(0, QUERY_CHARS),
          })),
        };
      } catch (error) {
        return { available: false, reason: `pg_stat_statements: ${(error as Error).message}` };
      } finally {
        await client.end().catch(() => {});
      }
    },
  };
}
