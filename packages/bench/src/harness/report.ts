import os from "node:os";
import { round, startTimer } from "./stats.ts";
import type { Yardstick } from "./yardstick.ts";

/**
 * docs/architecture.md#benchmarks: human-readable progress on stderr, one JSON object on the last
 * line of stdout. Nothing else is written to stdout, so `pnpm bench x | tail -n 1` is always the
 * result.
 */
export interface Reporter {
  /** one progress line on stderr, prefixed with the bench name and the seconds since start */
  progress(line: string): void;
  /** writes the final JSON line on stdout */
  emit(result: {
    params: object;
    results: object;
    engine: object;
    via: string;
    yardstick: Yardstick;
  }): void;
}

export interface Environment {
  node: string;
  cpus: number;
  cpu_model: string;
  platform: string;
  memory_gb: number;
  /** 1-minute load average when the run started and when it ended: other work on the machine */
  load_avg: { start: number; end: number };
  scale: number;
  /** the machine's own speed, measured before the run (see yardstick.ts) */
  yardstick: Yardstick;
}

export function environment(scale: number, loadAtStart: number, yardstick: Yardstick): Environment {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpus: cpus.length,
    cpu_model: cpus[0]?.model.trim() ?? "unknown",
    platform: `${process.platform}-${process.arch}`,
    memory_gb: round(os.totalmem() / 1024 ** 3, 1),
    load_avg: { start: round(loadAtStart), end: round(os.loadavg()[0] ?? 0) },
    scale,
    yardstick,
  };
}

export function createReporter(bench: string, scale: number): Reporter {
  const elapsed = startTimer();
  const loadAtStart = os.loadavg()[0] ?? 0;
  return {
    progress(line) {
      process.stderr.write(`[${bench} +${(elapsed() / 1000).toFixed(1)}s] ${line}\n`);
    },
    emit({ params, results, engine, via, yardstick }) {
      const line = JSON.stringify({
        bench,
        engine,
        via,
        params,
        results,
        environment: environment(scale, loadAtStart, yardstick),
      });
      process.stdout.write(`${line}\n`);
    },
  };
}

/** 12345.6 → "12,346": for progress lines only; the JSON keeps plain numbers. */
export function fmt(value: number, digits = 0): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}
