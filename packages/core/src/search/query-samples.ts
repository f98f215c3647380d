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
  /**
   * Samples a dataset keeps; once they are all taken, a new one overwrites one at random.
   * Recall@10 varies widely from query to query (a standard deviation of 0.10–0.15 around
   * 0.95 on the search benchmark's queries), so the list size a measurement picks depends on
   * how many it ranks: resampled from 400 such queries, 30 at random against a fixed 0.97
   * picked anything from 100 to 640; 128 under the confidence bound (calibrate-ef-search.ts)
   * picked 200–320 in 89 % of draws (docs/indexing.md).
   */
  slots: 128,
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
 * Stores one embedded query of the dataset's, and says how many samples the dataset held
 * before it (what `samplesCallForCalibration` decides on). Until the ring is full a sample
 * takes the lowest free slot, so that the ring fills in `slots` searches; after that it
 * overwrites one at random (`slot`, for tests, picks one). One statement; the foreign key
 * makes a dataset deleted meanwhile an error, which callers treat like any failed sample: the
 * search has answered, nothing depends on it. Two samples stored at once may pick the same
 * slot: one overwrites the other, and the ring fills a search later.
 */
export async function recordQuerySample(
  db: Database,
  dataset: SampledDataset,
  vector: readonly number[],
  slot?: number,
): Promise<number> {
  const embedding = scaledVectorOf(vector, dataset.dimensions);
  const slots = QUERY_SAMPLES.slots;
  const [row] = await queryRows<{ held: number | string }>(
    db,
    sql`WITH taken AS (SELECT slot FROM search_query_samples WHERE dataset_id = ${dataset.id}),
      held AS (SELECT count(*) AS n FROM taken),
      free AS (SELECT min(s) AS slot FROM generate_series(0, ${slots - 1}::int) AS s
               WHERE s NOT IN (SELECT slot FROM taken)),
      stored AS (
        INSERT INTO search_query_samples (dataset_id, slot, embedding)
        SELECT ${dataset.id},
               coalesce(${slot ?? null}::int, free.slot, floor(random() * ${slots}::int)::int)::smallint,
               ${embedding}
        FROM free
        ON CONFLICT (dataset_id, slot)
        DO UPDATE SET embedding = excluded.embedding, sampled_at = now())
      SELECT n AS held FROM held`,
  );
  return Number(row?.held ?? 0);
}

/**
 * Whether a dataset should be measured again on its searches, now that it holds `samples` of
 * them: measured on phrases of its texts and now holding `minForCalibration` searches, or
 * measured on searches and now holding twice as many as that measurement ranked (or the whole
 * ring, when twice would not fit). A dataset not measured yet is measured when its graph is
 * large enough, on whatever it holds by then.
 */
export function samplesCallForCalibration(
  dataset: Pick<DatasetRecord, "efSearchRows" | "efSearchQueries" | "efSearchQueryCount">,
  samples: number,
): boolean {
  if (dataset.efSearchRows === null) return false;
  // A caller counting the sample it just stored into a full ring says one too many.
  const held = Math.min(samples, QUERY_SAMPLES.slots);
  if (dataset.efSearchQueries !== "searches") return held >= QUERY_SAMPLES.minForCalibration;
  const ranked = dataset.efSearchQueryCount ?? QUERY_SAMPLES.minForCalibration;
  return held > ranked && held >= Math.min(2 * ranked, QUERY_SAMPLES.slots);
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
