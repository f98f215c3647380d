import type { HttpClient } from "./http.ts";
import type { Target } from "./target.ts";

/** What every benchmark gets from the CLI, and what it gives back for the final JSON line. */
export interface BenchContext {
  target: Target;
  http: HttpClient;
  /** BENCH_SCALE: 1 is the size the issue names */
  scale: number;
  progress: (line: string) => void;
}

export interface BenchResult {
  /** the parameters actually used (sizes after scaling, counts, models) */
  params: Record<string, unknown>;
  /** the figures the issue names */
  results: Record<string, unknown>;
}

export interface Bench {
  name: string;
  /** one line for the usage text */
  summary: string;
  /**
   * Optional: runs before the stack starts, for what the stack must point at (a loopback
   * model server for OPENAI_BASE_URL); `stack` configures a stack the CLI starts.
   */
  prepare?(progress: (line: string) => void): Promise<Prepared>;
  run(ctx: BenchContext): Promise<BenchResult>;
}

export interface Prepared {
  stack: StackSettings;
  /** runs after the stack has stopped */
  close(): Promise<void>;
}

/** Settings of a started stack that a benchmark may choose (see `StackOptions`). */
export interface StackSettings {
  openaiBaseUrl?: string;
  openaiApiKey?: string;
}

/** `full` scaled by BENCH_SCALE, rounded down to a multiple of `step` and at least `min`. */
export function scaled(
  full: number,
  scale: number,
  options: { step?: number; min?: number } = {},
): number {
  const step = options.step ?? 1;
  return Math.max(options.min ?? step, Math.floor((full * scale) / step) * step);
}

/** BENCH_SCALE as a number in (0, 10]; undefined when it is not one. */
export function parseScale(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return 1;
  const scale = Number(value);
  return Number.isFinite(scale) && scale > 0 && scale <= 10 ? scale : undefined;
}
