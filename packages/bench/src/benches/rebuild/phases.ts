import { round, type Summary, summarize } from "../../harness/stats.ts";

/**
 * Where a dataset stands in a bulk rebuild of its HNSW graph (docs/indexing.md, deferred vector
 * indexing, step 6), as GET /api/datasets/{id} shows it:
 * - `backlog`: rows wait for the graph, no build under way (the build waits for the writes to
 *   pause, then for the indexer's next turn);
 * - `rebuilding`: a build under way;
 * - `after`: the graph valid and holding every row.
 */
export type RebuildPhase = "backlog" | "rebuilding" | "after";

export const REBUILD_PHASES: readonly RebuildPhase[] = ["backlog", "rebuilding", "after"];

/**
 * `vector_index` as both heads report it. `rebuilding` is new with builds beside the serving
 * graph (migration `0027`); before it, a build dropped the serving graph first and `graph` said
 * so. Optional: the old head does not send it.
 */
export interface IndexReading {
  pending_rows: number;
  graph: string;
  rebuilding?: boolean | undefined;
  ef_search?: number | undefined;
}

export function phaseOf(reading: IndexReading): RebuildPhase {
  // New head: a graph built beside the serving one, which stays `valid`. Old head: no graph
  // serves while it is rebuilt (`building`, or `missing`/`invalid` between the drop and the
  // build, or after a build was cut short). Either way the build is under way.
  if (reading.rebuilding === true || reading.graph !== "valid") return "rebuilding";
  return reading.pending_rows > 0 ? "backlog" : "after";
}

/** A change of phase: when, and the reading that showed it. */
export interface PhaseChange extends IndexReading {
  phase: RebuildPhase;
  /** seconds since the log started (the extra rows written) */
  at_s: number;
}

/** One phase's queries and what the index said meanwhile. */
export interface PhaseReport {
  /** when the phase was first read, in seconds since the log started */
  from_s: number;
  /** how long it lasted, summed over its stretches (from its reading to the next phase's) */
  seconds: number;
  /** the answered queries' latency; null when none was answered in it */
  latency_ms: Summary | null;
  /** queries answered with an error status */
  failed: number;
  /** queries answered with fewer results than asked for */
  incomplete: number;
  /** the `graph` values read in it */
  graph_states: string[];
  /** the `ef_search` values read in it: a change would weigh on the latencies */
  ef_search: number[];
}

interface PhaseRecord {
  from_ms: number;
  ms: number;
  latencies: number[];
  failed: number;
  incomplete: number;
  graphStates: Set<string>;
  efSearch: Set<number>;
}

/**
 * Queries tagged with the phase the latest reading of the index showed. A reading is taken
 * every few seconds, so a phase's edges are known to within that interval: the queries of a
 * stretch between two readings of different phases count in the first.
 */
export class PhaseLog {
  readonly changes: PhaseChange[] = [];
  #phases = new Map<RebuildPhase, PhaseRecord>();
  #current: { phase: RebuildPhase; sinceMs: number } | undefined;
  #rebuildingReported = false;

  constructor(private readonly startMs: number) {}

  /** the phase the latest reading showed; undefined before the first */
  get phase(): RebuildPhase | undefined {
    return this.#current?.phase;
  }

  /** whether a reading carried `rebuilding` (the new head: builds beside the serving graph) */
  get rebuildingReported(): boolean {
    return this.#rebuildingReported;
  }

  /** A reading of the index at `nowMs`: the queries recorded from now on count in its phase. */
  read(reading: IndexReading, nowMs: number): RebuildPhase {
    const phase = phaseOf(reading);
    if (typeof reading.rebuilding === "boolean") this.#rebuildingReported = true;
    let record = this.#phases.get(phase);
    if (!record) {
      record = {
        from_ms: nowMs,
        ms: 0,
        latencies: [],
        failed: 0,
        incomplete: 0,
        graphStates: new Set(),
        efSearch: new Set(),
      };
      this.#phases.set(phase, record);
    }
    record.graphStates.add(reading.graph);
    if (reading.ef_search !== undefined) record.efSearch.add(reading.ef_search);
    if (this.#current?.phase !== phase) {
      this.#closeStretch(nowMs);
      this.#current = { phase, sinceMs: nowMs };
      const { pending_rows, graph, rebuilding, ef_search } = reading;
      this.changes.push({
        phase,
        at_s: round((nowMs - this.startMs) / 1000, 1),
        pending_rows,
        graph,
        ...(rebuilding === undefined ? {} : { rebuilding }),
        ...(ef_search === undefined ? {} : { ef_search }),
      });
    }
    return phase;
  }

  /**
   * One query in the current phase: its milliseconds, or undefined when it failed; `complete`
   * false when it returned fewer results than asked for.
   */
  record(ms: number | undefined, complete = true): void {
    const phase = this.#current?.phase;
    if (phase === undefined) throw new Error("PhaseLog: a query recorded before any reading");
    const record = this.#phases.get(phase) as PhaseRecord;
    if (ms === undefined) {
      record.failed++;
      return;
    }
    record.latencies.push(ms);
    if (!complete) record.incomplete++;
  }

  /** queries answered in `phase` so far */
  answered(phase: RebuildPhase): number {
    return this.#phases.get(phase)?.latencies.length ?? 0;
  }

  /** Each phase as it stands at `nowMs` (the current one lasting until then); null if unseen. */
  report(nowMs: number): Record<RebuildPhase, PhaseReport | null> {
    const open = this.#current;
    const entries = REBUILD_PHASES.map((phase) => {
      const record = this.#phases.get(phase);
      if (!record) return [phase, null] as const;
      const ms = record.ms + (open?.phase === phase ? nowMs - open.sinceMs : 0);
      const report: PhaseReport = {
        from_s: round((record.from_ms - this.startMs) / 1000, 1),
        seconds: round(ms / 1000, 1),
        latency_ms: record.latencies.length > 0 ? summarize(record.latencies) : null,
        failed: record.failed,
        incomplete: record.incomplete,
        graph_states: [...record.graphStates],
        ef_search: [...record.efSearch],
      };
      return [phase, report] as const;
    });
    return Object.fromEntries(entries) as Record<RebuildPhase, PhaseReport | null>;
  }

  #closeStretch(nowMs: number): void {
    const open = this.#current;
    if (!open) return;
    const record = this.#phases.get(open.phase) as PhaseRecord;
    record.ms += nowMs - open.sinceMs;
  }
}
