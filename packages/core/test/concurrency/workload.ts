import { ConflictError, NotFoundError, type SourceReader } from "../../src/index.ts";

/**
 * The bookkeeping of the concurrency suite: what each writer was told succeeded (the model the
 * final state is held to), and every error, classified. Nothing here knows SQL.
 */

/** Knobs for a longer or heavier run: `QUARRY_CONCURRENCY_WRITERS=8 …_SECONDS=60`. */
export const WORKLOAD = {
  writers: envNumber("QUARRY_CONCURRENCY_WRITERS", 8),
  seconds: envNumber("QUARRY_CONCURRENCY_SECONDS", 20),
  seed: envNumber("QUARRY_CONCURRENCY_SEED", 1),
  /** CSV uploads ingested while the writers run (one of them big enough for several slices) */
  uploads: envNumber("QUARRY_CONCURRENCY_UPLOADS", 6),
};

function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
}

/** A seeded PRNG, so a failing schedule of choices can be replayed (`QUARRY_CONCURRENCY_SEED`). */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function weighted<T extends string>(random: () => number, weights: Record<T, number>): T {
  const entries = Object.entries(weights) as [T, number][];
  let r = random() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [name, w] of entries) {
    r -= w;
    if (r < 0) return name;
  }
  return entries[entries.length - 1]![0];
}

/** Words every writer uses, so writers of different documents meet on the same term rows. */
const VOCABULARY = [
  "comet",
  "bread",
  "bank",
  "river",
  "stone",
  "light",
  "music",
  "garden",
  "engine",
  "paper",
  "winter",
  "silver",
  "forest",
  "ocean",
  "market",
  "castle",
  "signal",
  "harbor",
  "planet",
  "orchard",
  "copper",
  "meadow",
  "lantern",
  "thunder",
  "violin",
  "glacier",
  "canyon",
  "pepper",
  "saddle",
  "marble",
  "falcon",
  "velvet",
  "quartz",
  "ember",
  "willow",
  "anchor",
];

/** A text of shared words with a tag that makes it unique (and recognisable in a failure). */
export function textOf(random: () => number, tag: string, words = 6 + Math.floor(random() * 8)) {
  const chosen = Array.from({ length: words }, () => pick(random, VOCABULARY));
  return `${tag} ${chosen.join(" ")}`;
}

// --- errors --------------------------------------------------------------------------------

export interface ErrorRecord {
  op: string;
  actor: string;
  code: string;
  message: string;
}

/** The SQLSTATE in an error or its causes (drivers and Drizzle wrap them), or the class name. */
export function errorCode(error: unknown): string {
  for (let e = error, depth = 0; e && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  if (error instanceof NotFoundError) return "not_found";
  if (error instanceof ConflictError) return "conflict";
  return error instanceof Error ? error.name : typeof error;
}

/** The innermost cause first (e.g. "deadlock detected"), then where it happened, shortened. */
function errorMessage(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    parts.push((e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 160));
    e = (e as { cause?: unknown }).cause;
  }
  return parts.reverse().join(" ← ");
}

export const SQLSTATE_NAMES: Record<string, string> = {
  "40P01": "deadlock",
  "40001": "serialization failure",
  "23503": "foreign key violation",
  "23505": "unique violation",
  "55P03": "lock not available",
  "57014": "statement timeout",
};

/** Counts operations and errors of every actor; only `legitimate` errors are not failures. */
export class Ledger {
  readonly ops = new Map<string, { ok: number; legitimate: number; failed: number }>();
  readonly unexpected: ErrorRecord[] = [];

  /**
   * Runs one operation; returns its result, or `undefined` when it failed. `legitimate` says
   * which errors are a correct answer in that moment (e.g. a 404 for a row another writer just
   * deleted); anything else — a deadlock or serialization failure above all — is recorded.
   */
  async run<T>(
    actor: string,
    op: string,
    action: () => Promise<T>,
    legitimate: (error: unknown) => boolean = () => false,
  ): Promise<{ ok: true; value: T } | { ok: false; legitimate: boolean }> {
    const counts = this.ops.get(op) ?? { ok: 0, legitimate: 0, failed: 0 };
    this.ops.set(op, counts);
    try {
      const value = await action();
      counts.ok++;
      return { ok: true, value };
    } catch (error) {
      if (legitimate(error)) {
        counts.legitimate++;
        return { ok: false, legitimate: true };
      }
      counts.failed++;
      this.unexpected.push({ op, actor, code: errorCode(error), message: errorMessage(error) });
      return { ok: false, legitimate: false };
    }
  }

  /** Unexpected errors by SQLSTATE (or class) and operation, e.g. `40P01 (deadlock) in E11 replace: 12`. */
  summary(): string[] {
    const counts = new Map<string, number>();
    for (const e of this.unexpected) {
      const name = SQLSTATE_NAMES[e.code];
      const key = `${e.code}${name ? ` (${name})` : ""} in ${e.op}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`);
  }

  total(): { ok: number; legitimate: number; failed: number } {
    const sum = { ok: 0, legitimate: 0, failed: 0 };
    for (const c of this.ops.values()) {
      sum.ok += c.ok;
      sum.legitimate += c.legitimate;
      sum.failed += c.failed;
    }
    return sum;
  }
}

export const isNotFound = (error: unknown) => error instanceof NotFoundError;

// --- models of acknowledged writes ---------------------------------------------------------

export interface ModelRow {
  id: number;
  text: string;
  /** the row's `n` metadata, as the last acknowledged E8 (or the write) set it */
  n: number;
}

/**
 * A row of a document that several writers append to, update and delete: which texts were
 * acknowledged for it, and whether a delete was.
 */
export interface HotRow {
  texts: Set<string>;
  deleted: boolean;
}

/** Stored files in memory (R2 is exercised end to end through workerd). */
export class MemoryFiles implements SourceReader {
  files = new Map<string, Uint8Array>();
  async size(key: string) {
    return this.files.get(key)?.length ?? null;
  }
  async read(key: string, offset: number, length: number) {
    const file = this.files.get(key);
    if (!file) throw new Error(`missing file ${key}`);
    return file.slice(offset, offset + length);
  }
}

const encoder = new TextEncoder();

/** A CSV upload: its bytes and the `text` of each record, which are exactly its rows. */
export function csvUpload(random: () => number, tag: string, records: number) {
  const texts: string[] = [];
  const lines = ["text,n"];
  for (let i = 0; i < records; i++) {
    const text = textOf(random, `${tag}r${i}`, 40 + Math.floor(random() * 30));
    texts.push(text);
    lines.push(`"${text}",${i}`);
  }
  return { bytes: encoder.encode(`${lines.join("\n")}\n`), texts };
}
