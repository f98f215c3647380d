import { type SQL, sql } from "drizzle-orm";

/**
 * How embeddings travel to Postgres: as integers, scaled by a power of two that Postgres
 * divides out. pgvector's text input parses every component with `strtof`, which in PGlite's
 * WASM build (musl's float scanner, software long double) costs ~1 µs: 0.37 ms per 384-d
 * vector of the CSV benchmark (0.8 ms when dense), 40 % of a CSV row's database time. An
 * `int4[]` parses ~4× faster, its cast to `vector` is pgvector's own, and multiplying by 2^-e
 * is exact in float4, so the stored value is the float4 nearest the model's to within one ulp
 * (components under 2^-6 of the largest are within 2^-30 of it in absolute terms). On Neon
 * the text route would be as good; this one is not worse.
 */
export interface ScaledVectors {
  /** every vector of the batch is multiplied by 2^exponent before rounding */
  exponent: number;
  /** `{…}` int4 array literals, in input order; null where the input is null */
  integers: (string | null)[];
}

/** Integers stay within 2^30: int4 holds them with room to spare. */
const INTEGER_BITS = 30;
/** 2^-exponent must be a normal float4 (2^-126 … 2^127). */
const MIN_EXPONENT = -127;
const MAX_EXPONENT = 126;

/**
 * One exponent for the whole batch, from its largest component: a statement builds one
 * scale vector, and its largest component keeps 30 significant bits.
 */
export function scaleVectors(vectors: readonly (readonly number[] | null)[]): ScaledVectors {
  let largest = 0;
  for (const vector of vectors) {
    if (!vector) continue;
    for (const x of vector) {
      if (!Number.isFinite(x)) throw new RangeError(`an embedding component is ${x}`);
      const size = Math.abs(x);
      if (size > largest) largest = size;
    }
  }
  let exponent = 0;
  if (largest > 0) {
    exponent = INTEGER_BITS - 1 - Math.floor(Math.log2(largest));
    // Math.log2 may land a hair off at a power of two.
    if (largest * 2 ** exponent >= 2 ** INTEGER_BITS) exponent--;
    exponent = Math.min(MAX_EXPONENT, Math.max(MIN_EXPONENT, exponent));
  }
  const factor = 2 ** exponent;
  if (largest * factor >= 2 ** INTEGER_BITS) {
    throw new RangeError(`an embedding component (${largest}) is beyond what float4 stores`);
  }
  return {
    exponent,
    integers: vectors.map((vector) => (vector ? integerLiteral(vector, factor) : null)),
  };
}

/**
 * Joined, not concatenated: `out += …` per component leaves a rope of ~770 nodes per vector,
 * ~90 MB allocated for a CSV slice's 2,000 vectors against ~24 MB, and is 4× slower. Writing
 * ASCII bytes and decoding each vector with `TextDecoder` is ~25 % faster (bundled, Node), and
 * one buffer and one decode per batch ~1.7×. Both were dropped for the ingest isolate's heap in
 * use over the 100 MB CSV (332 and 211 MB against ~101 joined), but that reading counts garbage
 * V8 had not collected (workerd sets no heap limit locally): after a full collection before each
 * reading, the per-batch buffer's live heap was the joined writer's (37.5 against 36.9 MB over
 * a 10 MB CSV, 2026-11-28). What is left to choose on is speed, which `pnpm bench ingest` did
 * not tell from this VM's noise (+9–12 % rows/s in one pair of runs).
 */
function integerLiteral(vector: readonly number[], factor: number): string {
  const integers = new Array<number>(vector.length);
  // The values are below 2^30, so Math.round is exact (and the array stays small integers).
  // Joined, not appended to a string: `+=` is ~1.7× faster in V8 but leaves a rope of ~770
  // pieces a vector (~34 KB against 2.4 KB flat), which took the ingest isolate's heap from
  // under 100 MB to 880 MB over a 100 MB CSV.
  for (let i = 0; i < vector.length; i++) integers[i] = Math.round((vector[i] as number) * factor);
  return `{${integers.join(",")}}`;
}

/**
 * The `vector` an int4 array literal of `scaled` stands for. The scale vector is an
 * uncorrelated subquery: Postgres builds it once per statement (an InitPlan), not per row.
 */
export function scaledVectorSql(integers: SQL, exponent: number, dimensions: number): SQL {
  return sql`(${integers}::int4[]::vector * (SELECT array_fill(power(2::float8, ${-exponent}::int)::real, ARRAY[${dimensions}::int])::vector))`;
}

/** One vector as `scaledVectorSql` builds it, scaled on its own (a query's, a sample's). */
export function scaledVectorOf(vector: readonly number[], dimensions: number): SQL {
  const scaled = scaleVectors([vector]);
  return scaledVectorSql(sql`${scaled.integers[0]}`, scaled.exponent, dimensions);
}
