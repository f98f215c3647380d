import { perSecond, type Summary, summarize } from "../../harness/stats.ts";
import { failureKind } from "../load/recorder.ts";
import { OPERATIONS, type Operation, type Outcome } from "./mix.ts";

/**
 * Outcomes of one phase's operations: latency samples and rows of the successful ones, the
 * legitimate non-successes by status (404/409), failures by kind (`"500"`, `"timeout"`,
 * `"network:ECONNRESET"`; see load/recorder.ts), and every answer counted by HTTP status.
 */
export interface OperationReport {
  ok: number;
  ok_per_s: number;
  rows_written: number;
  /** of the successful requests, in milliseconds */
  latency_ms: Summary | null;
  legitimate: Record<string, number>;
  failed: Record<string, number>;
}

const OK_STATUS: Record<Operation, string> = {
  e11_replace_shared: "200",
  e11_new: "200",
  e13_append: "200",
  e8_update: "200",
  e14_delete: "204",
  e5_create: "200",
};

export class Outcomes {
  private readonly samples = new Map<Operation, number[]>();
  private readonly rows = new Map<Operation, number>();
  private readonly legitimate = new Map<Operation, Map<string, number>>();
  private readonly failures = new Map<Operation, Map<string, number>>();
  /** the first few failure messages, for the progress log */
  readonly examples: string[] = [];

  record(op: Operation, outcome: Outcome, ms: number): void {
    if (outcome.kind === "ok") {
      const list = this.samples.get(op) ?? [];
      this.samples.set(op, list);
      list.push(ms);
      this.rows.set(op, (this.rows.get(op) ?? 0) + outcome.rows);
    } else if (outcome.kind === "legitimate") {
      bump(this.legitimate, op, String(outcome.status));
    } else {
      this.fail(op, outcome.error);
    }
  }

  fail(op: Operation, error: unknown): void {
    bump(this.failures, op, failureKind(error));
    if (this.examples.length < 10) {
      const message = error instanceof Error ? error.message : String(error);
      this.examples.push(`${op}: ${failureKind(error)}: ${message.slice(0, 300)}`);
    }
  }

  report(elapsedMs: number) {
    const operations = {} as Record<Operation, OperationReport>;
    const byStatus: Record<string, number> = {};
    const add = (status: string, n: number) => {
      byStatus[status] = (byStatus[status] ?? 0) + n;
    };
    let ok = 0;
    let rows = 0;
    let legitimate = 0;
    let failed = 0;
    for (const op of OPERATIONS) {
      const samples = this.samples.get(op) ?? [];
      const opLegitimate = Object.fromEntries(this.legitimate.get(op) ?? []);
      const opFailed = Object.fromEntries(this.failures.get(op) ?? []);
      const opRows = this.rows.get(op) ?? 0;
      operations[op] = {
        ok: samples.length,
        ok_per_s: perSecond(samples.length, elapsedMs),
        rows_written: opRows,
        latency_ms: samples.length > 0 ? summarize(samples) : null,
        legitimate: opLegitimate,
        failed: opFailed,
      };
      ok += samples.length;
      rows += opRows;
      if (samples.length > 0) add(OK_STATUS[op], samples.length);
      for (const [status, n] of Object.entries(opLegitimate)) {
        legitimate += n;
        add(status, n);
      }
      for (const [kind, n] of Object.entries(opFailed)) {
        failed += n;
        add(kind, n);
      }
    }
    const status5xx = Object.entries(byStatus)
      .filter(([kind]) => /^5\d\d$/.test(kind))
      .reduce((a, [, n]) => a + n, 0);
    return {
      ok,
      legitimate,
      failed,
      rows_written: rows,
      by_status: byStatus,
      status_5xx: status5xx,
      operations,
    };
  }
}

function bump<K>(map: Map<K, Map<string, number>>, key: K, kind: string): void {
  const counts = map.get(key) ?? new Map<string, number>();
  map.set(key, counts);
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
}
