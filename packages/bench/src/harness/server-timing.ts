import { summarize } from "./stats.ts";

/**
 * A reply's `Server-Timing` (docs/api.md#timing) as figures: each metric's duration in
 * milliseconds by name (`db`, `app`), and the database's round trips from `db`'s description.
 */
export interface ServerTimingFigures {
  /** the database's round trips, summed */
  db: number;
  roundTrips: number;
  /** the app's own time, from the request reaching it until its reply was ready */
  app: number;
}

const METRIC = /([A-Za-z0-9_-]+)((?:;[^,;]*)*)/g;

export function parseServerTiming(header: string | undefined): ServerTimingFigures | undefined {
  if (!header) return undefined;
  const metrics = new Map<string, { dur: number; desc: string }>();
  for (const [, name, params] of header.matchAll(METRIC)) {
    const dur = params?.match(/;\s*dur=([0-9.]+)/)?.[1];
    const desc = params?.match(/;\s*desc="?([^";]*)"?/)?.[1] ?? "";
    if (name && dur !== undefined) metrics.set(name, { dur: Number(dur), desc });
  }
  const db = metrics.get("db");
  const app = metrics.get("app");
  if (!db || !app) return undefined;
  return { db: db.dur, roundTrips: Number(db.desc.match(/^\d+/)?.[0] ?? 0), app: app.dur };
}

/** One reply's figures (`parseServerTiming`) with its time at the client (`http`), in ms. */
export interface TimedReply extends ServerTimingFigures {
  http: number;
}

/**
 * Where replies' time went, as p50s of per-reply figures: the database's round trips as the
 * worker waited for them (`db`), the worker's own code beyond them (`app` − `db`: auth,
 * validation, embedding, JSON), and what lies outside the app (the client's time − `app`:
 * sockets, workerd, and the dev proxy when in the path).
 */
export function timeSplit(replies: readonly TimedReply[]) {
  const p50 = (values: number[]) => summarize(values).p50;
  return {
    database_round_trips_p50_ms: p50(replies.map((t) => t.db)),
    worker_code_p50_ms: p50(replies.map((t) => t.app - t.db)),
    outside_the_app_p50_ms: p50(replies.map((t) => t.http - t.app)),
  };
}
