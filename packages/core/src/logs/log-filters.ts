import { logComments, logs } from "@quarry/db";
import { and, eq, gte, isNull, lte, type SQL, sql } from "drizzle-orm";
import type { LogFiltersInput } from "./log-filters-input.ts";

/**
 * E7's order, newest first, ties broken by id. NULLS LAST as the indexes on `logs` are declared
 * (drizzle's `.desc()`): a plain `DESC` means NULLS FIRST, which no index provides, and
 * Postgres would sort every matching log for each page. Both columns are NOT NULL.
 */
export const NEWEST_LOGS_FIRST = [
  sql`${logs.createdAt} DESC NULLS LAST`,
  sql`${logs.id} DESC NULLS LAST`,
] as const;

/**
 * A place in E7's order: a log's `created_at` as Postgres prints it (microseconds, which a JS
 * Date would round away) and its id.
 */
export interface LogCursor {
  at: string;
  id: string;
}

/** A log's `LogCursor.at`, selected beside it. */
export const LOG_CURSOR_AT = sql<string>`${logs.createdAt}::text`;

/** The logs after `cursor` in E7's order (older, or as old with a smaller id). */
export function olderThan(cursor: LogCursor): SQL {
  return sql`(${logs.createdAt}, ${logs.id}) < (${cursor.at}::timestamptz, ${cursor.id})`;
}

/**
 * The WHERE clause of an endpoint's logs under E7's filters. Each filter is an equality or a
 * range the indexes on `logs` lead with (endpoint, then rating or user, then time), so a
 * filtered page reads its own logs, not every log of the endpoint (migration 0012).
 * `endpoint` is one `requireEndpoint` found in the caller's project, whose logs are all of that
 * project: the logs' own `project_id` is not tested again. Tested too, it was a second guess
 * the planner multiplied in without statistics (a table just filled; PGlite's, always): two
 * equalities at 0.5 % each made an endpoint's 100,000 logs ~2 rows, so every page, the first
 * one included, was a bitmap scan of all of them and a sort (84 ms native, 134 ms PGlite;
 * 4 ms without it).
 */
export function logFilterCondition(endpoint: { id: string }, filters: LogFiltersInput): SQL {
  const conditions: (SQL | undefined)[] = [eq(logs.endpointId, endpoint.id)];
  if (filters.rating === "positive") conditions.push(eq(logs.positiveRating, true));
  if (filters.rating === "negative") conditions.push(eq(logs.positiveRating, false));
  if (filters.rating === "unrated") conditions.push(isNull(logs.positiveRating));
  if (filters.user !== undefined) conditions.push(eq(logs.userId, filters.user));
  if (filters.status !== undefined) conditions.push(eq(logs.status, filters.status));
  if (filters.since !== undefined) conditions.push(gte(logs.createdAt, filters.since));
  if (filters.until !== undefined) conditions.push(lte(logs.createdAt, filters.until));
  if (filters.has_comments !== undefined) {
    const commented = sql`EXISTS (SELECT 1 FROM ${logComments} WHERE ${logComments.logId} = ${logs.id})`;
    conditions.push(filters.has_comments ? commented : sql`NOT ${commented}`);
  }
  return and(...conditions) as SQL;
}
