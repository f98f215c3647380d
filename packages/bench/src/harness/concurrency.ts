import { type Summary, startTimer, summarize } from "./stats.ts";

/**
 * Runs `task` from `clients` concurrent loops, each taking the next iteration number until
 * `count` iterations have started or `durationMs` has passed (whichever is given; both: the
 * first reached). The first error stops every loop and is rethrown once they have settled.
 */
export interface ConcurrentOptions {
  clients: number;
  count?: number;
  durationMs?: number;
  /** one unit of work; its duration becomes a latency sample */
  task: (iteration: number, client: number) => Promise<void>;
  /** called after each completed iteration, with how many have completed */
  onProgress?: (completed: number) => void;
}

export interface ConcurrentResult {
  completed: number;
  elapsedMs: number;
  /** per-iteration durations in milliseconds, in completion order */
  samples: number[];
}

export async function runConcurrent(options: ConcurrentOptions): Promise<ConcurrentResult> {
  const { clients, count, durationMs, task } = options;
  if (count === undefined && durationMs === undefined) {
    throw new Error("runConcurrent: give a count, a duration or both");
  }
  if (!Number.isInteger(clients) || clients < 1) throw new Error("runConcurrent: clients >= 1");
  const elapsed = startTimer();
  const samples: number[] = [];
  let next = 0;
  let failure: { error: unknown } | undefined;

  const more = () =>
    failure === undefined &&
    (count === undefined || next < count) &&
    (durationMs === undefined || elapsed() < durationMs);

  const loop = async (client: number) => {
    while (more()) {
      const iteration = next++;
      const took = startTimer();
      try {
        await task(iteration, client);
      } catch (error) {
        failure ??= { error };
        return;
      }
      samples.push(took());
      options.onProgress?.(samples.length);
    }
  };

  await Promise.all(Array.from({ length: clients }, (_, client) => loop(client)));
  if (failure) throw failure.error;
  return { completed: samples.length, elapsedMs: elapsed(), samples };
}

/**
 * One client, one request after another: `warmup` unmeasured runs, then `requests` measured
 * ones. `run` gets the iteration number from `firstIndex` on (a bench keeps its sequential
 * queries apart from its concurrent ones) and returns its milliseconds.
 */
export async function measureSequential(
  run: (i: number) => Promise<number>,
  requests: number,
  warmup: number,
  firstIndex = 0,
): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + requests; i++) {
    const ms = await run(firstIndex + i);
    if (i >= warmup) samples.push(ms);
  }
  return summarize(samples);
}
