import type { IngestMessage } from "@quarry/core";
import type { Database } from "@quarry/db";
import type { HandlerDeps, MessageHandler } from "../src/handler.ts";
import { retryAfter } from "../src/outcome.ts";

/**
 * Deliberate failures around the ingest-slice handler, for fault-injection runs only (the
 * local stack applies this wrapper when INGEST_FAULT_RATE is set: `pnpm bench ingest`, the
 * fault suite; production's entry never imports it). With probability `rate`, a delivery
 * fails at one fault point picked at random:
 * - before any write: reading the source fails;
 * - after a statement committed: its reply is lost, so the delivery fails with some parts of
 *   the slice's rows stored (or its progress moved) and the rest not;
 * - after the commit, between slices: sending the next slice's message fails;
 * - after the whole slice: a crash before the ack, so the queue redelivers the message.
 * Only the first MAX_STRUCK_ATTEMPTS deliveries of a message are struck: faults exercise
 * redelivery and idempotency but never exhaust the retries (whose backoff would make a run
 * last minutes), so every document of a fault-injection run must still end `ready`.
 */
export const MAX_STRUCK_ATTEMPTS = 2;

export const FAULT_POINTS = ["read", "part", "enqueue", "ack"] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export function withSliceFaults(
  handler: MessageHandler<IngestMessage>,
  rate: number,
  random: () => number = Math.random,
): MessageHandler<IngestMessage> {
  if (!(rate > 0)) return handler;
  return async (message, delivery, deps) => {
    const point =
      delivery.attempts <= MAX_STRUCK_ATTEMPTS && random() < rate
        ? FAULT_POINTS[Math.floor(random() * FAULT_POINTS.length)]
        : undefined;
    let struck = false;
    // A fault that strikes says so on stderr (the stack's log), so a run can tell what happened.
    const strike = (at: FaultPoint) => {
      if (struck || at !== point) return false;
      struck = true;
      console.warn(JSON.stringify({ level: "warn", msg: "injected fault", point: at }));
      return true;
    };
    const outcome = await handler(message, delivery, faultyDeps(deps, strike));
    // A crash before the ack: the queue redelivers the finished slice at once.
    if (outcome.kind === "ack" && strike("ack")) return retryAfter(0);
    return outcome;
  };
}

function faultyDeps(deps: HandlerDeps, strike: (at: FaultPoint) => boolean): HandlerDeps {
  return {
    ...deps,
    source: {
      size: (key) => deps.source.size(key),
      read: async (key, offset, length) => {
        if (strike("read")) throw new Error("injected fault: storage read failed");
        return deps.source.read(key, offset, length);
      },
    },
    send: async (message, options) => {
      if (strike("enqueue")) throw new Error("injected fault: queue send failed");
      await deps.send(message, options);
    },
    db: losingReplies(deps.db, strike),
  };
}

/**
 * The slice's database, where a statement's reply may be lost after it committed: one part of
 * the slice's rows stored and the rest not (or the progress moved and the next message unsent).
 */
function losingReplies(db: Database, strike: (at: FaultPoint) => boolean): Database {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "execute") return Reflect.get(target, property, receiver);
      const execute = (async (query: Parameters<Database["execute"]>[0]) => {
        const result = await target.execute(query);
        if (strike("part")) throw new Error("injected fault: connection lost after a statement");
        return result;
      }) as unknown as Database["execute"];
      return execute;
    },
  });
}
