import type { RowInput } from "../../harness/api.ts";
import { createTextCorpus } from "../../harness/text-corpus.ts";

/**
 * The rows the `rows` benchmark writes. Row `i` is the same in every run and on both sides of
 * the comparison (HTTP upsert and raw SQL): ~500 characters of prose, and metadata
 * `{group, n: i, bucket}` where `bucket` takes each value 0..99 exactly once in every 100
 * consecutive rows, so `{"bucket": b}` selects exactly 1% of any whole number of batches.
 */
export const TEXT_CHARS = 500;
export const BUCKETS = 100;
// 37 is coprime with 100, so i ↦ 37·i mod 100 visits every bucket once per 100 rows, in a
// scattered order; 73 is its inverse (37 · 73 = 2701 ≡ 1 mod 100).
const STRIDE = 37;
const STRIDE_INVERSE = 73;

const corpus = createTextCorpus({ seed: 11, chars: TEXT_CHARS });

export interface WorkloadRow {
  text: string;
  metadata: { group: string; n: number; bucket: number };
}

export function workloadRow(i: number): WorkloadRow {
  const { text, topic } = corpus.text(i);
  return { text, metadata: { group: topic, n: i, bucket: bucketOf(i) } };
}

export function bucketOf(i: number): number {
  return (i * STRIDE) % BUCKETS;
}

/** `n` of the k-th row (0-based, insertion order) whose bucket is `bucket`. */
export function nthInBucket(bucket: number, k: number): number {
  return k * BUCKETS + ((bucket * STRIDE_INVERSE) % BUCKETS);
}

/** Rows first..first+count-1 as E11 row inputs. */
export function rowInputs(first: number, count: number): RowInput[] {
  return Array.from({ length: count }, (_, k) => {
    const row = workloadRow(first + k);
    return { data: { text: row.text }, metadata: row.metadata };
  });
}

export function documentId(prefix: string, batch: number): string {
  return `${prefix}-${String(batch).padStart(6, "0")}`;
}
