import type { IngestDeps } from "@quarry/core";

/**
 * Deliberate failures for fault-injection runs (`INGEST_FAULT_RATE`, set only by the
 * benchmark and tests on the local stack; unset in production, where this is a no-op).
 * A fault strikes before any write (reading the source), after the commit (sending the next
 * slice), or after the whole slice (a crash before the ack, so the queue redelivers).
 */
export interface Faults {
  rate: number;
  wrap(deps: IngestDeps): IngestDeps;
  /** whether to drop the ack of a finished slice, as a crash would */
  crashBeforeAck(): boolean;
}

export function faultsFrom(value: string | undefined): Faults | null {
  const rate = Number(value ?? "");
  if (!value || !Number.isFinite(rate) || rate <= 0) return null;
  const strike = () => Math.random() < rate;
  return {
    rate,
    wrap: (deps) => ({
      source: {
        size: (key) => deps.source.size(key),
        read: async (key, offset, length) => {
          if (strike()) throw new Error("injected fault: storage read failed");
          return deps.source.read(key, offset, length);
        },
      },
      enqueue: async (message) => {
        if (strike()) throw new Error("injected fault: queue send failed");
        await deps.enqueue(message);
      },
    }),
    crashBeforeAck: strike,
  };
}
