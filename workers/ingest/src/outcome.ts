/**
 * What a handler decides about its message; the composition root applies it (ack, or retry
 * after a delay). Handlers never touch the message, so they can be called and wrapped
 * without a queue.
 */
export type Outcome = { kind: "ack" } | { kind: "retry-after"; seconds: number };

export const ack: Outcome = { kind: "ack" };

export function retryAfter(seconds: number): Outcome {
  return { kind: "retry-after", seconds };
}

/** Backoff between redeliveries of a failed message: 2 s, 4 s, 8 s … capped at 5 minutes. */
export function backoffSeconds(attempts: number): number {
  return Math.min(2 ** attempts, 300);
}

export function applyOutcome(message: Message, outcome: Outcome): void {
  if (outcome.kind === "ack") message.ack();
  else message.retry({ delaySeconds: outcome.seconds });
}
