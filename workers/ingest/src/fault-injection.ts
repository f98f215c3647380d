import type { IngestDeps } from "@quarry/core";
import type { Database } from "@quarry/db";

/**
 * Deliberate failures for fault-injection runs (`INGEST_FAULT_RATE`, set only by the
 * benchmark and tests on the local stack; unset in production, where this is a no-op).
 * With probability `rate`, a delivery of a message fails at one fault point picked at random:
 * - before any write: reading the source fails;
 * - after the writes, before the commit: the slice's transaction has inserted its rows and
 *   moved the progress, then aborts (everything must roll back);
 * - after the commit, between slices: sending the next slice's message fails;
 * - after the whole slice: a crash before the ack, so the queue redelivers the message.
 * Only the first MAX_STRUCK_ATTEMPTS deliveries of a message are struck: faults exercise
 * redelivery and idempotency but never exhaust the retries (whose backoff would make a run
 * last minutes), so every document of a fault-injection run must still end `ready`.
 */
export const MAX_STRUCK_ATTEMPTS = 2;

export const FAULT_POINTS = ["read", "commit", "enqueue", "ack"] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export interface Faults {
  rate: number;
  /** where this delivery fails, if it does (a point it never reaches does not fail it) */
  point: FaultPoint | undefined;
  wrap(deps: IngestDeps): IngestDeps;
  /** the database of the slice, whose transaction may abort after its writes */
  wrapDatabase(db: Database): Database;
  /** whether to drop the ack of a finished slice, as a crash would */
  crashBeforeAck(): boolean;
}

/** The faults of one delivery of a message (`attempts`: 1 for its first delivery). */
export function faultsFrom(value: string | undefined, attempts: number): Faults | null {
  const rate = Number(value ?? "");
  if (!value || !Number.isFinite(rate) || rate <= 0) return null;
  const point =
    attempts <= MAX_STRUCK_ATTEMPTS && Math.random() < rate
      ? FAULT_POINTS[Math.floor(Math.random() * FAULT_POINTS.length)]
      : undefined;
  let struck = false;
  // A fault that strikes says so on stderr (the stack's log), so a run can tell what happened.
  const strike = (at: FaultPoint) => {
    if (struck || at !== point) return false;
    struck = true;
    console.warn(JSON.stringify({ level: "warn", msg: "injected fault", point: at }));
    return true;
  };
  return {
    rate,
    point,
    wrap: (deps) => ({
      source: {
        size: (key) => deps.source.size(key),
        read: async (key, offset, length) => {
          if (strike("read")) throw new Error("injected fault: storage read failed");
          return deps.source.read(key, offset, length);
        },
      },
      enqueue: async (message) => {
        if (strike("enqueue")) throw new Error("injected fault: queue send failed");
        await deps.enqueue(message);
      },
    }),
    wrapDatabase: (db) =>
      new Proxy(db, {
        get(target, property, receiver) {
          if (property !== "transaction") return Reflect.get(target, property, receiver);
          const transaction: Database["transaction"] = (run, config) =>
            target.transaction(async (tx) => {
              const result = await run(tx);
              if (strike("commit")) {
                throw new Error("injected fault: transaction aborted after its writes");
              }
              return result;
            }, config);
          return transaction;
        },
      }),
    crashBeforeAck: () => strike("ack"),
  };
}
