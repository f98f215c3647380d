import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { queryRows } from "./query-rows.ts";

/**
 * Folds a dataset's appended keyword deltas (`keyword_term_deltas`, `keyword_dataset_deltas`)
 * into its base statistics, and returns how many delta rows it folded. Writers append deltas
 * instead of updating the shared term rows, so concurrent writers of one dataset never wait for
 * each other there; searches add the deltas to the base rows, so folding changes no score —
 * it only keeps that addition short. Never waits: a dataset being folded by another caller, or
 * being deleted, is skipped (0). `quarry_fold_keyword_deltas`: packages/db/README.md.
 */
export async function foldKeywordDeltas(db: Database, datasetId: string): Promise<number> {
  const [row] = await queryRows<{ folded: number | string }>(
    db,
    sql`SELECT quarry_fold_keyword_deltas(${datasetId}) AS folded`,
  );
  return Number(row?.folded ?? 0);
}
