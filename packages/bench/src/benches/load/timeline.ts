import { percentile, round } from "../../harness/stats.ts";

/** What the dataset's `vector_index` said at a window's end (GET /api/datasets/{id}). */
export interface IndexReading {
  pending_rows: number | null;
  graph: string | null;
}

/** One window of the load: its requests, its searches' latency, the vector index at its end. */
export interface TimelineWindow {
  /** the window's end, in seconds since the load started */
  at_s: number;
  ok_per_s: number;
  failed: number;
  /** p50 of the window's successful requests of each search operation, in ms (null: none) */
  p50_ms: Record<string, number | null>;
  pending_rows: number | null;
  graph: string | null;
}

/**
 * The load cut into fixed windows, so that a run long enough for the vector index to fall
 * behind shows it happening: the rows waiting for the graph (every semantic search ranks them
 * exactly) and the searches' latency, window by window, rather than one figure for the run.
 * `record` takes every request's outcome; `close` ends a window and reads the index.
 */
export class LoadTimeline {
  readonly windows: TimelineWindow[] = [];
  #ok = 0;
  #failed = 0;
  #samples = new Map<string, number[]>();
  #windowStartMs: number;

  constructor(
    readonly tracked: readonly string[],
    private readonly startMs: number,
  ) {
    this.#windowStartMs = startMs;
  }

  record(op: string, ms: number | undefined): void {
    if (ms === undefined) {
      this.#failed++;
      return;
    }
    this.#ok++;
    if (!this.tracked.includes(op)) return;
    const list = this.#samples.get(op) ?? [];
    this.#samples.set(op, list);
    list.push(ms);
  }

  /**
   * Ends the current window at `nowMs` and starts the next: the window's requests are counted
   * now, the index as `read` finds it once it answers (null if it fails), so that requests
   * finished while the index is read count in the next window.
   */
  async close(nowMs: number, read: () => Promise<IndexReading>): Promise<TimelineWindow> {
    const seconds = Math.max(nowMs - this.#windowStartMs, 1) / 1000;
    const p50 = Object.fromEntries(
      this.tracked.map((op) => {
        const sorted = [...(this.#samples.get(op) ?? [])].sort((a, b) => a - b);
        return [op, sorted.length > 0 ? round(percentile(sorted, 50)) : null];
      }),
    );
    const window: TimelineWindow = {
      at_s: round((nowMs - this.startMs) / 1000, 1),
      ok_per_s: round(this.#ok / seconds, 1),
      failed: this.#failed,
      p50_ms: p50,
      pending_rows: null,
      graph: null,
    };
    this.windows.push(window);
    this.#ok = 0;
    this.#failed = 0;
    this.#samples = new Map();
    this.#windowStartMs = nowMs;
    const index = await read();
    window.pending_rows = index.pending_rows;
    window.graph = index.graph;
    return window;
  }
}
