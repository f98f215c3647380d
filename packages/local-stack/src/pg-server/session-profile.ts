/**
 * Where PGlite's one session spends its time, statement by statement: PGlite has no
 * `pg_stat_statements`, and every client waits while one holds the session, so this account is
 * what says which statements a slow embedded stack is made of. Each message a client runs on
 * the session is timed (long-turns.ts) and added to its statement's totals; a wire connection's
 * Bind, Execute and Sync count towards the statement its latest Parse named, so a statement's
 * time is its planning and execution with its triggers, as `pg_stat_statements` with
 * `track = top` counts it. The embedded maintenance adds its VACUUMs and ANALYZEs.
 */
export interface StatementTotals {
  calls: number;
  ms: number;
}

/** Totals by statement text (whitespace collapsed, cut at `STATEMENT_CHARS`). */
export type ProfileSnapshot = ReadonlyMap<string, StatementTotals>;

const STATEMENT_CHARS = 240;
/**
 * Distinct statements kept; later ones count under `OTHER`. Quarry's statements are
 * parameterised, so a few hundred cover a run; the bound keeps a client that inlines its
 * values (psql, say) from growing the map without end.
 */
const MAX_STATEMENTS = 2000;
const OTHER = "(other statements)";
/** Messages that carry no statement of their own before any Parse (startup, a bare Sync). */
const UNNAMED = "(no statement)";

export class SessionProfile {
  private readonly totals = new Map<string, StatementTotals>();
  /**
   * The latest statement and its key: a statement's Bind, Execute and Sync bring the same text
   * again (the same string), which is not normalized once per message.
   */
  private latest: { statement: string; key: string } | undefined;

  /**
   * Adds `ms` to `statement`'s time; `call`: this message starts a run of the statement (a
   * Query or a Parse), rather than carrying on one (Bind, Execute, Sync).
   */
  record(statement: string | undefined, ms: number, call = true): void {
    let key = statement === undefined ? UNNAMED : this.keyOf(statement);
    if (!this.totals.has(key) && this.totals.size >= MAX_STATEMENTS) key = OTHER;
    const totals = this.totals.get(key);
    const calls = call ? 1 : 0;
    if (totals) {
      totals.calls += calls;
      totals.ms += ms;
    } else {
      this.totals.set(key, { calls, ms });
    }
  }

  private keyOf(statement: string): string {
    if (this.latest?.statement !== statement) {
      this.latest = { statement, key: normalize(statement) };
    }
    return this.latest.key;
  }

  /** A copy of the totals so far, to subtract from a later one (`since`). */
  snapshot(): ProfileSnapshot {
    return new Map([...this.totals].map(([key, t]) => [key, { ...t }]));
  }

  /** What ran since `before` (a snapshot of this profile), by total time, longest first. */
  since(before: ProfileSnapshot): { statement: string; calls: number; ms: number }[] {
    const rows: { statement: string; calls: number; ms: number }[] = [];
    for (const [statement, now] of this.totals) {
      const then = before.get(statement) ?? { calls: 0, ms: 0 };
      const calls = now.calls - then.calls;
      if (now.ms > then.ms || calls > 0) rows.push({ statement, calls, ms: now.ms - then.ms });
    }
    return rows.sort((a, b) => b.ms - a.ms);
  }
}

function normalize(statement: string): string {
  return statement.replace(/\s+/g, " ").trim().slice(0, STATEMENT_CHARS);
}
