import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { scaledVectorOf } from "../rows/vector-transfer.ts";
import { queryRows } from "./query-rows.ts";

/**
 * The queries a dataset's `ef_search` is measured on (`calibrateEfSearch`): its own recent
 * searches, kept in `search_query_samples`. How long a candidate list must be for a recall
 * depends on the queries as much as on the graph: at 100k `local/hash` rows (m 24,
 * ef_construction 128, native), three topic words (the search benchmark's queries) reached
 * recall@10 ≥ 0.97 at a list of 250, while 3–6 consecutive words of a stored text (the
 * stand-in used until a dataset has been searched) needed 400; with pgvector's default graph,
 * 1,000 for both, the phrases reaching only 0.89 there. Measuring on the real queries gives
 * searches the recall promised at the list size those queries need, not the stand-in's.
 */
export const QUERY_SAMPLES = {
  /** samples a dataset keeps; a new one overwrites one of them at random */
  slots: 64,
  /** samples the calibration needs to measure on them (fewer: phrases of stored texts) */
  minForCalibration: 30,
  /**
   * One isolate records at most one sample per dataset per this many milliseconds: a few a
   * second fill the ring within a minute of steady searching, at a cost a busy dataset's
   * searches do not notice (one small upsert, after the reply).
   */
  spacingMs: 200,
} as const;

/**
 * Where a search hands its embedded query: the edge records some of them after the reply
 * (`recordQuerySample`). Searches run without one in tests and tools.
 */
export interface QuerySampler {
  offer(dataset: DatasetRecord, vector: readonly number[]): void;
}

type SampledDataset = Pick<DatasetRecord, "id" | "dimensions">;

/**
 * Stores one embedded query of the dataset's in a slot picked at random, and says how many
 * samples the dataset held before it (what `samplesCallForCalibration` decides on). One
 * statement; the foreign key makes a dataset deleted meanwhile an error, which callers treat
 * like any failed sample: the search has answered, nothing depends on it.
 */
export async function recordQuerySample(
  db: Database,
  dataset: SampledDataset,
  vector: readonly number[],
  slot: number = Math.floor(Math.random() * QUERY_SAMPLES.slots),
): Promise<number> {
  const embedding = scaledVectorOf(vector, dataset.dimensions);
  const [row] = await queryRows<{ held: number | string }>(
    db,
    sql`WITH held AS (SELECT count(*) AS n FROM search_query_samples WHERE dataset_id = ${dataset.id}),
      stored AS (
        INSERT INTO search_query_samples (dataset_id, slot, embedding)
        VALUES (${dataset.id}, ${slot}::smallint, ${embedding})
        ON CONFLICT (dataset_id, slot)
        DO UPDATE SET embedding = excluded.embedding, sampled_at = now())
      SELECT n AS held FROM held`,
  );
  return Number(row?.held ?? 0);
}

/**
 * Whether a dataset whose `ef_search` was measured on phrases of its texts should be measured
 * again on its searches, now that it holds `samples` of them. A dataset not measured yet is
 * measured when its graph is large enough, on whatever it holds by then.
 */
export function samplesCallForCalibration(
  dataset: Pick<DatasetRecord, "efSearchRows" | "efSearchQueries">,
  samples: number,
): boolean {
  return (
    dataset.efSearchRows !== null &&
    dataset.efSearchQueries !== "searches" &&
    samples >= QUERY_SAMPLES.minForCalibration
  );
}

/** The dataset's sampled query vectors, most recent first, at most `limit`. */
export async function loadQuerySamples(
  db: Database,
  datasetId: string,
  limit: number = QUERY_SAMPLES.slots,
): Promise<number[][]> {
  const found = await queryRows<{ embedding: string }>(
    db,
    sql`SELECT embedding::text AS embedding FROM search_query_samples
        WHERE dataset_id = ${datasetId} ORDER BY sampled_at DESC, slot LIMIT ${limit}::int`,
  );
  return found.map((r) => JSON.parse(r.embedding) as number[]);
}
