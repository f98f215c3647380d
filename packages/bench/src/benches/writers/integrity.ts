import { describeDifference, findDifferences } from "../../../../core/test/support/invariants.ts";
import { connectNative } from "../../../../core/test/support/native-database.ts";
import { type SharedLedger, sharedKey, type Writer } from "./mix.ts";

/**
 * After a phase, through the stack's database:
 * - **structures**: every structure maintained beside `rows` equals its recomputation from
 *   `rows` (`packages/core/test/support/invariants.ts`, read-only: keyword statistics and
 *   postings, document lengths, filter tables, backlog ∪ graph, document row counts);
 * - **acknowledged writes**: each writer's own documents hold exactly the rows of its last
 *   acknowledged write of them (E11/E13 replies, then its acknowledged E8/E14), in order, with
 *   their texts and `n`; each shared document holds the rows of one acknowledged replacement
 *   that no acknowledged replacement started after (linearizable), each row with the text of
 *   that replacement or, once an E8 of it was acknowledged, of one of those E8s, and only rows
 *   an acknowledged E14 deleted are missing; acknowledged E14s are gone from `rows`; every E5
 *   document is `ready` with the row count its reply gave.
 * Writes that failed without a legitimate answer may or may not have applied: what they touched
 * is counted as `uncertain` and not held to the model (any such failure already fails the run).
 */
export interface PhaseIntegrity {
  invariants_exact: boolean;
  structures: { exact: boolean; differences: string[] };
  writes: {
    exact: boolean;
    own_documents: number;
    own_rows: number;
    shared_documents: number;
    shared_replacements_acknowledged: number;
    e8_shared_acknowledged: number;
    e14_acknowledged: number;
    e5_documents: number;
    uncertain: number;
    differences: string[];
  };
  rows_final: number;
}

interface StoredRow {
  id: number;
  dataset_id: string;
  document_id: string;
  text: string | null;
  n: string | null;
}

const EXAMPLES = 10;

export async function checkPhase(
  databaseUrl: string,
  datasetIds: string[],
  writers: Writer[],
  shared: SharedLedger,
): Promise<PhaseIntegrity> {
  // One connection: PGlite's socket server serves one at a time, and nothing here overlaps.
  const { db, pool } = connectNative(databaseUrl, 1);
  try {
    const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
      (await pool.query(text, params)).rows as T[];
    const found = await findDifferences({ db, sql }, { datasetIds, examples: 5 });
    const structures = found.map(describeDifference);

    const stored = await sql<StoredRow>(
      `SELECT id::float8 AS id, dataset_id, document_id, data->>'text' AS text, metadata->>'n' AS n
       FROM rows WHERE dataset_id = ANY($1) ORDER BY id`,
      [datasetIds],
    );
    const documents = await sql<{ dataset_id: string; id: string; status: string }>(
      "SELECT dataset_id, id, status FROM documents WHERE dataset_id = ANY($1)",
      [datasetIds],
    );
    const writes = checkWrites(stored, documents, writers, shared);
    return {
      invariants_exact: structures.length === 0 && writes.exact,
      structures: { exact: structures.length === 0, differences: structures },
      writes,
      rows_final: stored.length,
    };
  } finally {
    await pool.end().catch(() => {});
  }
}

/** The acknowledged-writes half of `checkPhase`, on rows already read (pure: testable alone). */
export function checkWrites(
  stored: StoredRow[],
  documents: { dataset_id: string; id: string; status: string }[],
  writers: Writer[],
  shared: SharedLedger,
): PhaseIntegrity["writes"] {
  const differences: string[] = [];
  let differenceCount = 0;
  const differ = (line: string) => {
    differenceCount++;
    if (differences.length < EXAMPLES) differences.push(line);
  };
  const byDocument = new Map<string, StoredRow[]>();
  const byId = new Map<number, StoredRow>();
  for (const row of stored) {
    const key = sharedKey(row.dataset_id, row.document_id);
    const list = byDocument.get(key) ?? [];
    byDocument.set(key, list);
    list.push(row);
    byId.set(row.id, row);
  }
  const statusOf = new Map(documents.map((d) => [sharedKey(d.dataset_id, d.id), d.status]));
  let uncertain = 0;
  let ownDocuments = 0;
  let ownRows = 0;
  let e5Documents = 0;

  // own documents: exactly the model, in order
  for (const w of writers) {
    for (const doc of w.own) {
      if (doc.uncertain) {
        uncertain++;
        continue;
      }
      ownDocuments++;
      ownRows += doc.rows.length;
      const rows = byDocument.get(sharedKey(w.datasetId, doc.id)) ?? [];
      const expected = doc.rows.map((r) => `${r.id}:${r.n}:${r.text}`);
      const actual = rows.map((r) => `${r.id}:${r.n}:${r.text}`);
      if (expected.length !== actual.length || expected.some((e, i) => e !== actual[i])) {
        const ids = (list: string[]) => list.map((e) => e.split(":")[0]).join(",");
        differ(
          `own document ${doc.id}: stored rows [${ids(actual)}], acknowledged [${ids(expected)}]` +
            (ids(actual) === ids(expected) ? " (same ids, texts or n differ)" : ""),
        );
      }
    }
    for (const created of w.created) {
      e5Documents++;
      const key = sharedKey(w.datasetId, created.id);
      const n = byDocument.get(key)?.length ?? 0;
      const status = statusOf.get(key);
      if (status !== "ready" || created.status !== "ready" || n !== created.rowCount) {
        differ(
          `E5 document ${created.id}: ${status ?? "missing"} with ${n} rows, acknowledged ${created.status} with ${created.rowCount}`,
        );
      }
    }
    uncertain += w.uncertainCreated.length;
  }

  // shared documents: one acknowledged replacement, then acknowledged E8/E14s of its rows
  const replacementOf = new Map<number, (typeof shared.replacements)[number]>();
  const keys = new Set<string>();
  for (const r of shared.replacements) {
    keys.add(sharedKey(r.datasetId, r.documentId));
    for (const row of r.rows) replacementOf.set(row.id, r);
  }
  for (const key of keys) {
    if (shared.uncertainDocuments.has(key)) {
      uncertain++;
      continue;
    }
    const rows = byDocument.get(key) ?? [];
    const replacements = shared.replacements.filter(
      (r) => sharedKey(r.datasetId, r.documentId) === key,
    );
    const candidates =
      rows.length > 0
        ? [replacementOf.get(rows[0]!.id)].filter((r) => r !== undefined)
        : replacements.filter((r) => r.rows.every((row) => shared.deletions.has(row.id)));
    const final = candidates[0];
    if (!final) {
      differ(
        `shared document ${key}: stored rows [${rows.map((r) => r.id).join(",")}] are no acknowledged replacement's`,
      );
      continue;
    }
    const later = replacements.filter((q) => q.startedAt > final.acknowledgedAt);
    if (later.length > 0) {
      differ(
        `shared document ${key}: holds writer ${final.writer}'s replacement acknowledged at ${Math.round(final.acknowledgedAt)} ms, but ${later.length} acknowledged replacements started after it`,
      );
    }
    const own = new Set(final.rows.map((r) => r.id));
    for (const row of rows) {
      if (!own.has(row.id))
        differ(`shared document ${key}: row ${row.id} is not from one replacement`);
    }
    for (const row of final.rows) {
      const got = byId.get(row.id);
      const unsure = shared.uncertainRows.has(row.id);
      if (!got) {
        if (!shared.deletions.has(row.id) && !unsure) {
          differ(`shared document ${key}: row ${row.id} is gone without an acknowledged E14`);
        }
        continue;
      }
      const updates = shared.updates.get(row.id);
      const allowed = unsure
        ? new Set([row.text, ...(updates ?? [])])
        : (updates ?? new Set([row.text]));
      if (!allowed.has(got.text ?? "")) {
        differ(
          `shared document ${key}: row ${row.id} has text '${(got.text ?? "").slice(0, 24)}…', not its replacement's or an acknowledged E8's`,
        );
      }
    }
  }

  // acknowledged deletions are gone
  const deletions = [...shared.deletions, ...writers.flatMap((w) => w.deleted)];
  for (const id of deletions) {
    if (byId.has(id)) differ(`row ${id}: deleted (acknowledged E14), still stored`);
  }
  let e8Shared = 0;
  for (const texts of shared.updates.values()) e8Shared += texts.size;

  if (differenceCount > differences.length) {
    differences.push(`… ${differenceCount - differences.length} more`);
  }
  return {
    exact: differenceCount === 0,
    own_documents: ownDocuments,
    own_rows: ownRows,
    shared_documents: keys.size,
    shared_replacements_acknowledged: shared.replacements.length,
    e8_shared_acknowledged: e8Shared,
    e14_acknowledged: deletions.length,
    e5_documents: e5Documents,
    uncertain,
    differences,
  };
}
