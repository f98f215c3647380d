import type { Database } from "@quarry/db";
import { type SQL, sql } from "drizzle-orm";

/**
 * `EXPLAIN` of `statement` as text, with sequential scans and sorts priced out (for its
 * transaction only): a few rows are ranked more cheaply without a graph, and this shows the
 * graph the planner would walk — none when the statement's expression is not the index's.
 */
export async function planWithoutScans(db: Database, statement: SQL): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_seqscan = off`);
    await tx.execute(sql`SET LOCAL enable_sort = off`);
    const explained = (await tx.execute(sql`EXPLAIN ${statement}`)) as unknown as {
      rows: Record<string, string>[];
    };
    return explained.rows.map((row) => Object.values(row)[0]).join("\n");
  });
}
