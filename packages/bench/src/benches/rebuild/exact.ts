import type pg from "pg";
import { round } from "../../harness/stats.ts";

/**
 * Whether E2's top-k is the exact one, judged by confidences rather than ids: texts of the
 * corpus repeat, so rows tie on distance and an exact ranking may order them either way. The
 * service sends the query's vector scaled to integers (`vector-transfer.ts`: within one float4
 * ulp of the text literal sent here), so equal confidences agree far within this tolerance.
 */
export const CONFIDENCE_TOLERANCE = 1e-5;

/**
 * How many of `exact`'s confidences `got` holds, each matched at most once, within `tolerance`:
 * 10 of 10 is the exact top-10, ties included.
 */
export function matchedConfidences(
  got: readonly number[],
  exact: readonly number[],
  tolerance = CONFIDENCE_TOLERANCE,
): number {
  const a = [...got].sort((x, y) => y - x);
  const b = [...exact].sort((x, y) => y - x);
  let matched = 0;
  let i = 0;
  let j = 0;
  // Both descending: the larger of two unmatched heads has no partner left on the other side.
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (Math.abs(x - y) <= tolerance) {
      matched++;
      i++;
      j++;
    } else if (x > y) i++;
    else j++;
  }
  return matched;
}

/** One sampled query: its confidences as E2 returned them, against the exact ranking's. */
export interface ExactCheck {
  matched: number;
  of: number;
}

export interface ExactSummary {
  /** sampled queries checked */
  checked: number;
  /** the share of them whose top-k was the exact one */
  exact_share: number;
  /** the share of the exact top-k's confidences found (recall@k, ties counted as found) */
  recall: number;
}

export function summarizeExact(checks: readonly ExactCheck[]): ExactSummary | null {
  if (checks.length === 0) return null;
  const whole = checks.filter((c) => c.matched === c.of).length;
  const matched = checks.reduce((sum, c) => sum + c.matched, 0);
  const of = checks.reduce((sum, c) => sum + c.of, 0);
  return {
    checked: checks.length,
    exact_share: round(whole / checks.length, 4),
    recall: round(of > 0 ? matched / of : 1, 4),
  };
}

/** At most `max` of `items`, spread evenly over them (first included), in order. */
export function evenlySpaced<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  return Array.from({ length: max }, (_, k) => items[Math.floor((k * items.length) / max)] as T);
}

/**
 * The exact top-`k` confidences (alpha 1: the cosine similarity clamped to [0, 1], as
 * `fusedConfidence` computes it) over the dataset's rows themselves, not the service's copies
 * in the graph or the backlog: the materialized CTE keeps any vector index out.
 */
export async function exactConfidences(
  db: pg.Client,
  datasetId: string,
  vector: readonly number[],
  k: number,
): Promise<number[]> {
  const found = await db.query<{ confidence: number }>(
    `WITH c AS MATERIALIZED (
       SELECT id, embedding FROM rows WHERE dataset_id = $2 AND embedding IS NOT NULL)
     SELECT greatest(0, 1 - (embedding <=> $1::vector))::float8 AS confidence
     FROM c ORDER BY embedding <=> $1::vector, id LIMIT ${k}`,
    [`[${vector.join(",")}]`, datasetId],
  );
  return found.rows.map((r) => Number(r.confidence));
}
