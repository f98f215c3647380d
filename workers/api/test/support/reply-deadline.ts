import { readFile } from "node:fs/promises";
import { inject } from "vitest";

/** A request that got no whole reply in time: the stack hung, which is never a pass. */
export class HangError extends Error {}

/**
 * How long one call of the shared e2e clients waits for its whole reply. Every call there
 * answers in under a second on an idle stack and in a few on a loaded CI VM; past this
 * something hangs. Failing here, before the test's own 60 s, with the workers' last words beats
 * that timeout, which says only that the test ran long (one CI run lost an upload test that
 * way, with no detail).
 */
export const REPLY_DEADLINE_MS = 45_000;

/** Runs `send` with a signal that aborts after `ms`; a hang becomes a HangError naming `label`. */
export async function withinReplyDeadline<T>(
  label: string,
  send: (signal: AbortSignal) => Promise<T>,
  ms = REPLY_DEADLINE_MS,
): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await send(signal);
  } catch (error) {
    if (!signal.aborted) throw error;
    throw new HangError(`${label}: no whole reply within ${ms} ms\n${await stackLogTail(30)}`);
  }
}

/** The last lines of the shared stack's logs (the local stack's, then the workers'), if any. */
export async function stackLogTail(lines: number): Promise<string> {
  const logs: [name: string, file: string][] = [
    ["local stack", inject("stackLog")],
    ["workers (wrangler)", inject("workerLog")],
  ];
  const kept = logs.filter(([, file]) => file !== "");
  if (kept.length === 0) return "(attached to a stack: no logs here)";
  const parts = await Promise.all(
    kept.map(async ([name, file]) => `${name} log, last lines:\n${await lastLines(file, lines)}`),
  );
  return parts.join("\n");
}

/** The last `lines` lines of a log file; "(none)" when it cannot be read, "(empty)" when empty. */
export async function lastLines(file: string, lines: number): Promise<string> {
  const text = await readFile(file, "utf8").catch(() => "(none)");
  return text.trimEnd().split("\n").slice(-lines).join("\n") || "(empty)";
}
