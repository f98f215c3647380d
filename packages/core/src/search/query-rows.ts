import type { Database } from "@quarry/db";
import type { SQL } from "drizzle-orm";

/**
 * Runs a hand-written query and returns its rows. Drivers differ in what `execute` returns
 * (node-postgres style results with `rows`, PGlite results with `rows`); both carry `rows`.
 * Columns come back as the driver parses them: callers convert bigints (`Number`).
 */
export async function queryRows<T>(db: Database, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
