/** Latency samples in milliseconds, timed with the monotonic high-resolution clock. */
export interface Summary {
  count: number;
  min: number;
  max: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Starts a stopwatch; the returned function gives the milliseconds elapsed since. */
export function startTimer(): () => number {
  const start = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `fn` and returns its value with the milliseconds it took. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const elapsed = startTimer();
  const value = await fn();
  return { value, ms: elapsed() };
}

/** Nearest-rank percentile of ascending `sorted` samples (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("summarize: no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    min: round(sorted[0] as number),
    max: round(sorted[sorted.length - 1] as number),
    mean: round(sum / sorted.length),
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
  };
}

/** `count` events in `ms` milliseconds, per second. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? round((count * 1000) / ms, 1) : Number.NaN;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
