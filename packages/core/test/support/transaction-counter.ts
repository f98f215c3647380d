import type { Database } from "@quarry/db";
import { type SQL, sql } from "drizzle-orm";

/**
 * One of the transaction's own statistics counters (`pg_stat_get_xact_*`, or a sum of them):
 * what its statements so far scanned or read of a table or an index. Tests read it before and
 * after a statement to count that statement's reads, which no other session's work changes.
 */
export async function transactionCounter(tx: Database, counter: SQL): Promise<number> {
  const { rows } = (await tx.execute(sql`SELECT ${counter} AS n`)) as unknown as {
    rows: { n: number | string }[];
  };
  return Number(rows[0]?.n);
}
