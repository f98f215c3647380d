import type { Row, RowsWritten } from "../../harness/api.ts";
import { type HttpClient, HttpError } from "../../harness/http.ts";
import { type Mix, operationsOf, pickByMix } from "../../harness/mix.ts";
import { pick, type Random } from "../../harness/random.ts";
import type { TextCorpus } from "../../harness/text-corpus.ts";

/**
 * The writers benchmark's operations (issue 14's mix), each one HTTP request of one writer, and
 * the ledger of what each writer was told succeeded: the model the final state is held to.
 *
 * - `e11_replace_shared`: E11 on one of the dataset's few shared documents, which every writer
 *   of the dataset replaces (the contention the issue measured);
 * - `e11_new`: E11 creating a new document of the writer's own;
 * - `e13_append`: E13 appending rows to one of the writer's recent own documents;
 * - `e8_update`: E8 changing the text (re-embedded) and the `n` metadata of a row the writer has
 *   seen acknowledged — half the time a row of a shared document from its own last replacement
 *   of it, else one of its own documents' rows;
 * - `e14_delete`: E14 of a row picked the same way;
 * - `e5_create`: E5 creating a document of the writer's own from inline content.
 *
 * Legitimate answers that are not successes: a 404 from E8/E14 on a shared row another writer's
 * replacement (or deletion) removed first, and a 409 for a document being ingested. Neither
 * changes anything, so the model ignores them.
 */
/** Share of each operation in the mix (percent), in the order reports list them. */
export const MIX = {
  e11_replace_shared: 20,
  e11_new: 15,
  e13_append: 20,
  e8_update: 20,
  e14_delete: 10,
  e5_create: 15,
} as const satisfies Mix<string>;
export type Operation = keyof typeof MIX;
export const OPERATIONS = operationsOf(MIX);

export const SIZES = {
  /** rows per E11 (shared replacement and new document) */
  e11_rows: 5,
  /** rows per E13 */
  e13_rows: 3,
  /** characters of each row's text */
  row_chars: 300,
  /** E5: inline content of this many characters, chunked at `e5_chunk_size` (overlap 50) */
  e5_chars: 1500,
  e5_chunk_size: 500,
  /** shared documents per dataset */
  shared_documents: 3,
  /** E13 appends to one of the writer's last few own documents */
  append_window: 4,
  /**
   * chance that E8/E14 pick a shared row (when the writer holds one) rather than an own row;
   * a shared row is picked from the writer's latest replacement that still has one
   */
  shared_row_share: 0.5,
};

/** Picks an operation by the mix, from a uniform `r` in [0, 1). */
export const pickOperation = (r: number): Operation => pickByMix(MIX, r);

export interface ModelRow {
  id: number;
  text: string;
  n: number;
}

/** A document only its writer touches: its rows are exactly what the writer was last told. */
export interface OwnDocument {
  id: string;
  rows: ModelRow[];
  /** a write to it failed without a legitimate answer: it may or may not have applied */
  uncertain: boolean;
}

/** An acknowledged replacement of a shared document: the rows its reply listed. */
export interface Replacement {
  datasetId: string;
  documentId: string;
  writer: number;
  rows: { id: number; text: string }[];
  /** ms on the phase clock when the request was sent and when the reply arrived */
  startedAt: number;
  acknowledgedAt: number;
}

/** What every writer of a phase was told succeeded on shared rows, and what stayed unknown. */
export interface SharedLedger {
  replacements: Replacement[];
  /** shared documents with a replacement that failed without a legitimate answer */
  uncertainDocuments: Set<string>;
  /** row id → texts of acknowledged E8s of it */
  updates: Map<number, Set<string>>;
  /** row ids of acknowledged E14s */
  deletions: Set<number>;
  /** shared row ids whose E8/E14 failed without a legitimate answer */
  uncertainRows: Set<number>;
}

export function newSharedLedger(): SharedLedger {
  return {
    replacements: [],
    uncertainDocuments: new Set(),
    updates: new Map(),
    deletions: new Set(),
    uncertainRows: new Set(),
  };
}

/** `datasetId/documentId`: the key of a shared document in the ledger. */
export const sharedKey = (datasetId: string, documentId: string) => `${datasetId}/${documentId}`;

export interface Writer {
  index: number;
  datasetId: string;
  sharedDocuments: readonly string[];
  random: Random;
  /** the writer's next sequence number (document ids, text tags) */
  seq: number;
  own: OwnDocument[];
  /** own row id → its document, and a flat list to pick from */
  ownRows: Map<number, OwnDocument>;
  ownPool: number[];
  /** shared document → row ids of the writer's own last acknowledged replacement still alive */
  sharedSeen: Map<string, number[]>;
  /** own row ids whose E14 was acknowledged */
  deleted: number[];
  /** E5 documents: the row count their reply gave */
  created: { id: string; rowCount: number; status: string }[];
  /** E5 documents whose request failed without a legitimate answer */
  uncertainCreated: string[];
}

export function newWriter(
  index: number,
  datasetId: string,
  sharedDocuments: readonly string[],
  random: Random,
): Writer {
  return {
    index,
    datasetId,
    sharedDocuments,
    random,
    seq: 0,
    own: [],
    ownRows: new Map(),
    ownPool: [],
    sharedSeen: new Map(),
    deleted: [],
    created: [],
    uncertainCreated: [],
  };
}

export interface MixTarget {
  http: HttpClient;
  token: string;
  corpus: TextCorpus;
  shared: SharedLedger;
  /** ms since the phase started */
  clock: () => number;
}

/** How an operation ended: rows written (stored or updated) on success. */
export type Outcome =
  | { kind: "ok"; rows: number }
  | { kind: "legitimate"; status: number }
  | { kind: "failed"; error: unknown };

const LEGITIMATE: Record<Operation, readonly number[]> = {
  e11_replace_shared: [409],
  e11_new: [409],
  e13_append: [409],
  e8_update: [404, 409],
  e14_delete: [404, 409],
  e5_create: [409],
};

/**
 * The operation writer `w` runs when the mix picks `op`: E11 new instead of E13 when the writer
 * has no own document to append to, and instead of E8/E14 when it holds no row (rare: each
 * writer starts with one document of its own and one replacement of each shared document).
 */
export function resolveOperation(w: Writer, op: Operation): Operation {
  if (op === "e13_append" && appendable(w).length === 0) return "e11_new";
  if ((op === "e8_update" || op === "e14_delete") && w.ownPool.length === 0) {
    if (sharedRowCount(w) === 0) return "e11_new";
  }
  return op;
}

function appendable(w: Writer): OwnDocument[] {
  return w.own.filter((d) => !d.uncertain).slice(-SIZES.append_window);
}

/**
 * Runs operation `op` (resolved) as writer `w`; never throws. `sharedDocument` chooses the
 * shared document an `e11_replace_shared` replaces (default: a random one).
 */
export async function runOperation(
  t: MixTarget,
  w: Writer,
  op: Operation,
  sharedDocument?: string,
): Promise<Outcome> {
  const undo: (() => void)[] = [];
  try {
    const rows = await apply(t, w, op, undo, sharedDocument);
    return { kind: "ok", rows };
  } catch (error) {
    if (error instanceof HttpError && LEGITIMATE[op].includes(error.status)) {
      return { kind: "legitimate", status: error.status };
    }
    for (const mark of undo) mark();
    return { kind: "failed", error };
  }
}

/** Sends one request and records what its reply acknowledged; `uncertain` runs on failure. */
async function apply(
  t: MixTarget,
  w: Writer,
  op: Operation,
  uncertain: (() => void)[],
  sharedDocument: string | undefined,
): Promise<number> {
  const token = t.token;
  const dataset = `/api/datasets/${encodeURIComponent(w.datasetId)}`;
  const seq = w.seq++;
  const tag = `w${w.index}s${seq}`;
  const text = (k: number) =>
    `${tag}k${k} ${t.corpus.text(w.index * 1_000_000 + seq * 8 + k, SIZES.row_chars).text}`;
  const rowsOf = (count: number, n: number) =>
    Array.from({ length: count }, (_, k) => ({
      data: { text: text(k) },
      metadata: { writer: `w${w.index}`, n },
    }));
  const toModel = (rows: Row[]): ModelRow[] =>
    rows.map((r) => ({ id: r.id, text: r.data.text ?? "", n: Number(r.metadata.n) }));

  switch (op) {
    case "e11_replace_shared": {
      const documentId = sharedDocument ?? pick(w.random, w.sharedDocuments);
      const key = sharedKey(w.datasetId, documentId);
      uncertain.push(() => t.shared.uncertainDocuments.add(key));
      const startedAt = t.clock();
      const reply = await t.http.post<RowsWritten>(
        `${dataset}/rows/upsert`,
        { document_id: documentId, rows: rowsOf(SIZES.e11_rows, 0) },
        { token },
      );
      const rows = reply.body.rows;
      t.shared.replacements.push({
        datasetId: w.datasetId,
        documentId,
        writer: w.index,
        rows: rows.map((r) => ({ id: r.id, text: r.data.text ?? "" })),
        startedAt,
        acknowledgedAt: t.clock(),
      });
      w.sharedSeen.delete(documentId); // re-inserted last: the writer's latest replacement
      w.sharedSeen.set(
        documentId,
        rows.map((r) => r.id),
      );
      return rows.length;
    }
    case "e11_new": {
      const doc: OwnDocument = { id: `${tag}-doc`, rows: [], uncertain: false };
      uncertain.push(() => {
        doc.uncertain = true;
        w.own.push(doc);
      });
      const reply = await t.http.post<RowsWritten>(
        `${dataset}/rows/upsert`,
        { document_id: doc.id, rows: rowsOf(SIZES.e11_rows, 0) },
        { token },
      );
      doc.rows = toModel(reply.body.rows);
      w.own.push(doc);
      for (const r of doc.rows) addOwnRow(w, r.id, doc);
      return doc.rows.length;
    }
    case "e13_append": {
      const doc = pick(w.random, appendable(w));
      uncertain.push(() => {
        doc.uncertain = true;
      });
      const reply = await t.http.post<RowsWritten>(
        `${dataset}/documents/${encodeURIComponent(doc.id)}/rows`,
        { rows: rowsOf(SIZES.e13_rows, 0) },
        { token },
      );
      const added = toModel(reply.body.rows);
      doc.rows.push(...added);
      for (const r of added) addOwnRow(w, r.id, doc);
      return added.length;
    }
    case "e8_update":
    case "e14_delete": {
      const target = pickRow(w);
      const path = `${dataset}/rows/${target.id}`;
      if (target.shared === undefined) {
        const doc = w.ownRows.get(target.id) as OwnDocument;
        uncertain.push(() => {
          doc.uncertain = true;
        });
        if (op === "e14_delete") {
          await t.http.request("DELETE", path, { token });
          doc.rows = doc.rows.filter((r) => r.id !== target.id);
          removeOwnRow(w, target.id);
          w.deleted.push(target.id);
          return 0;
        }
        const next = { text: text(0), n: seq };
        await t.http.request<Row>("PATCH", path, {
          token,
          body: { data: { text: next.text }, metadata: { n: next.n } },
        });
        const row = doc.rows.find((r) => r.id === target.id) as ModelRow;
        row.text = next.text;
        row.n = next.n;
        return 1;
      }
      const documentId = target.shared;
      uncertain.push(() => t.shared.uncertainRows.add(target.id));
      const forget = () => {
        const seen = w.sharedSeen.get(documentId) ?? [];
        w.sharedSeen.set(
          documentId,
          seen.filter((id) => id !== target.id),
        );
      };
      try {
        if (op === "e14_delete") {
          await t.http.request("DELETE", path, { token });
          t.shared.deletions.add(target.id);
          forget();
          return 0;
        }
        const next = text(0);
        await t.http.request<Row>("PATCH", path, {
          token,
          body: { data: { text: next }, metadata: { n: seq } },
        });
        const texts = t.shared.updates.get(target.id) ?? new Set<string>();
        t.shared.updates.set(target.id, texts);
        texts.add(next);
        return 1;
      } catch (error) {
        // Gone: only a writer's own replacement's rows are picked, so another writer replaced
        // the document, taking all of them: the writer stops picking any.
        if (error instanceof HttpError && error.status === 404) w.sharedSeen.delete(documentId);
        throw error;
      }
    }
    case "e5_create": {
      const id = `${tag}-e5`;
      uncertain.push(() => w.uncertainCreated.push(id));
      const paragraphs: string[] = [];
      for (let k = 0, chars = 0; chars < SIZES.e5_chars; k++) {
        const p = text(k);
        paragraphs.push(p);
        chars += p.length + 2;
      }
      const reply = await t.http.post<{ row_count: number; status: string }>(
        `${dataset}/documents`,
        {
          id,
          content: paragraphs.join("\n\n"),
          chunk_size: SIZES.e5_chunk_size,
          chunk_overlap: 50,
        },
        { token },
      );
      w.created.push({ id, rowCount: reply.body.row_count, status: reply.body.status });
      return reply.body.row_count;
    }
  }
}

function sharedRowCount(w: Writer): number {
  let n = 0;
  for (const ids of w.sharedSeen.values()) n += ids.length;
  return n;
}

/** A row for E8/E14: a shared one (with its document) or an own one. */
function pickRow(w: Writer): { id: number; shared: string | undefined } {
  // Map order is insertion order and a replacement re-inserts its document: latest last.
  const latest = [...w.sharedSeen].filter(([, ids]) => ids.length > 0).pop();
  const shared = latest ? latest[1].map((id) => ({ id, doc: latest[0] })) : [];
  const useShared =
    shared.length > 0 && (w.ownPool.length === 0 || w.random() < SIZES.shared_row_share);
  if (useShared) {
    const row = pick(w.random, shared);
    return { id: row.id, shared: row.doc };
  }
  return { id: pick(w.random, w.ownPool), shared: undefined };
}

function addOwnRow(w: Writer, id: number, doc: OwnDocument): void {
  w.ownRows.set(id, doc);
  w.ownPool.push(id);
}

function removeOwnRow(w: Writer, id: number): void {
  w.ownRows.delete(id);
  const at = w.ownPool.indexOf(id);
  if (at >= 0) {
    w.ownPool[at] = w.ownPool[w.ownPool.length - 1] as number;
    w.ownPool.pop();
  }
}
