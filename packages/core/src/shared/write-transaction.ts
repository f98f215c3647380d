import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { ContentionError, NotFoundError } from "./errors.ts";

/**
 * SQLSTATEs after which running the whole transaction again is right: a deadlock victim
 * (40P01) and a serialization failure (40001). Both roll back everything the attempt wrote.
 */
const CONTENTION_CODES = new Set(["40P01", "40001"]);

/** Attempts of one write before contention reaches the caller (a 429 it may retry). */
export const WRITE_ATTEMPTS = 5;

/**
 * Runs `write` again, from the start, when the database chose it as a deadlock victim or
 * could not serialise it, up to `WRITE_ATTEMPTS` times with a short jittered backoff. The
 * lock order of packages/db/CONCURRENCY.md makes both rare; this keeps the rare case from becoming
 * an error; contention that outlasts every attempt is a `ContentionError` (429: nothing was
 * written, send it again), never a 500. `write` must be a whole transaction (or a single
 * statement): it is repeated.
 */
export async function retryOnContention<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isContention(error)) throw error;
      if (attempt >= WRITE_ATTEMPTS) throw new ContentionError(attempt, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    }
  }
}

/** Whether the error, or any error in its cause chain (drivers and Drizzle wrap them), is contention. */
export function isContention(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONTENTION_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function backoffMs(attempt: number): number {
  return Math.round(5 * 2 ** attempt * (0.5 + Math.random()));
}

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * A transaction that writes a dataset's rows, in the lock order every such writer follows
 * (packages/db/CONCURRENCY.md): first the dataset's row, shared (`FOR KEY SHARE`: writers never wait
 * for each other there, only for the dataset's deletion, which locks it exclusively first),
 * then the document's row, then rows and what the triggers keep beside them. A dataset deleted
 * meanwhile is a 404. Retried whole on contention.
 */
export function writeTransaction<T>(
  db: Database,
  datasetId: string,
  write: (tx: Transaction) => Promise<T>,
): Promise<T> {
  return retryOnContention(() =>
    db.transaction(async (tx) => {
      await lockDatasetForWrite(tx, datasetId);
      return write(tx);
    }),
  );
}

async function lockDatasetForWrite(tx: Transaction, datasetId: string): Promise<void> {
  const result = (await tx.execute(
    sql`SELECT id FROM datasets WHERE id = ${datasetId} FOR KEY SHARE`,
  )) as unknown as { rows: unknown[] };
  if (result.rows.length === 0) throw new NotFoundError("Dataset", datasetId);
}

/**
 * The same first lock inside a single statement (E8, E14): a condition that locks the dataset's
 * row shared before the statement locks any row of `rows` — Postgres evaluates an uncorrelated
 * sub-select once, before the first row it filters.
 */
export function datasetWriteLock(datasetId: string) {
  return sql`exists (SELECT 1 FROM datasets WHERE id = ${datasetId} FOR KEY SHARE)`;
}
