import { describeError, errorCode } from "../../harness/error-chain.ts";
import { HttpError } from "../../harness/http.ts";
import { perSecond, type Summary, summarize } from "../../harness/stats.ts";

/**
 * Outcomes of the load benchmark's operations: latency samples of the successful ones and
 * failures counted by HTTP status ("502"), or by kind when no status came back
 * ("network:ECONNRESET", "timeout", "stream_error" for a 200 stream that ended without
 * `[DONE]`, "bad_reply" for a 2xx whose content was wrong).
 */
export class Failure extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

export interface OpReport {
  ok: number;
  failed: number;
  ok_per_s: number;
  /** of the successful requests, in milliseconds */
  latency_ms: Summary | null;
  errors: Record<string, number>;
}

export class Recorder {
  private readonly samples = new Map<string, number[]>();
  private readonly errors = new Map<string, Map<string, number>>();
  /** the first few failure messages, for the progress log */
  readonly examples: string[] = [];

  ok(op: string, ms: number): void {
    const list = this.samples.get(op) ?? [];
    this.samples.set(op, list);
    list.push(ms);
  }

  fail(op: string, error: unknown): string {
    const kind = failureKind(error);
    const counts = this.errors.get(op) ?? new Map<string, number>();
    this.errors.set(op, counts);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    if (this.examples.length < 10) {
      this.examples.push(`${op}: ${kind}: ${describeError(error).slice(0, 300)}`);
    }
    return kind;
  }

  /** Per operation, for `elapsedMs` of load. */
  report(ops: readonly string[], elapsedMs: number): Record<string, OpReport> {
    const out: Record<string, OpReport> = {};
    for (const op of ops) {
      const samples = this.samples.get(op) ?? [];
      const errors = Object.fromEntries(this.errors.get(op) ?? []);
      out[op] = {
        ok: samples.length,
        failed: Object.values(errors).reduce((a, b) => a + b, 0),
        ok_per_s: perSecond(samples.length, elapsedMs),
        latency_ms: samples.length > 0 ? summarize(samples) : null,
        errors,
      };
    }
    return out;
  }

  /** Failures of every operation by kind, and how many were 5xx. */
  totals(): { ok: number; failed: number; by_kind: Record<string, number>; status_5xx: number } {
    const byKind: Record<string, number> = {};
    for (const counts of this.errors.values()) {
      for (const [kind, n] of counts) byKind[kind] = (byKind[kind] ?? 0) + n;
    }
    const failed = Object.values(byKind).reduce((a, b) => a + b, 0);
    const status5xx = Object.entries(byKind)
      .filter(([kind]) => /^5\d\d$/.test(kind))
      .reduce((a, [, n]) => a + n, 0);
    let ok = 0;
    for (const list of this.samples.values()) ok += list.length;
    return { ok, failed, by_kind: byKind, status_5xx: status5xx };
  }
}

export function failureKind(error: unknown): string {
  if (error instanceof HttpError) return String(error.status);
  if (error instanceof Failure) return error.kind;
  // Node's fetch says "fetch failed" and keeps the socket's error in its causes.
  const code = errorCode(error);
  if (code !== undefined) return `network:${code}`;
  return "other";
}

/** Rejects with a "timeout" Failure when `promise` has not settled within `ms`. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Failure("timeout", `${what}: no reply in ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
