import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { queryRows } from "./query-rows.ts";

/**
 * The GIN indexes that take row writes' entries into a pending list: on `rows`, the keyword
 * index (migration 0022) and the search filters' (0006); E6's filters' on its narrow copy of the
 * metadata (0024).
 */
const PENDING_LIST_INDEXES = [
  "rows_keyword_gin_idx",
  "rows_dataset_metadata_gin_idx",
  "row_filter_metadata_gin_idx",
];

/**
 * Moves the entries written rows left in the search indexes' pending lists into the indexes
 * proper, and returns how many pages that emptied. A GIN index takes new rows' entries into an
 * unsorted pending list (`fastupdate`: a 100-row insert cost 9 ms with the default 4 MB list, 22
 * with a 64 kB one), which every scan of the index reads whole and the planner counts against it:
 * with a few MB pending, a hybrid search read all of a 6,000-row table rather than the index
 * (21 ms). Vacuum empties the lists, and autovacuum looks at most once a minute; otherwise the
 * writer whose insert outgrows `gin_pending_list_limit` (4 MB) empties it, and its request
 * waits ~50 ms. Called after writes, by the indexer and after the API's replies
 * (`PendingListFlushes`), so that neither searches nor writers carry it. Waits only for another
 * backend emptying the same list.
 */
export async function flushPendingIndexEntries(db: Database): Promise<number> {
  const calls = PENDING_LIST_INDEXES.map((name) => sql`gin_clean_pending_list(${name}::regclass)`);
  const [row] = await queryRows<{ pages: number | string }>(
    db,
    sql`SELECT ${sql.join(calls, sql` + `)} AS pages`,
  );
  return Number(row?.pages ?? 0);
}
