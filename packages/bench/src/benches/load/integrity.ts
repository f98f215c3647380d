import pg from "pg";
import { startTimer } from "../../harness/stats.ts";
import type { LoadTarget } from "./operations.ts";

/**
 * After the load: no acknowledged write may be lost or duplicated.
 * - E11: every acknowledged upsert's document holds exactly its rows, each once; one that
 *   failed holds all of them or none.
 * - E9: every acknowledged upload's document reaches `ready` (within `ingestTimeoutMs`) with
 *   exactly the file's rows, each once.
 * - E4: every acknowledged completion is in E7 exactly once, with status 200.
 * Rows are read with SQL when the stack's Postgres is reachable, else through E6.
 */
export interface IntegrityOptions {
  databaseUrl: string | undefined;
  ingestTimeoutMs: number;
  progress: (line: string) => void;
}

interface DocumentState {
  status: "queued" | "processing" | "ready" | "failed";
  row_count: number;
  error: string | null;
}

export async function verifyIntegrity(t: LoadTarget, options: IntegrityOptions) {
  const { ledger } = t;
  const token = t.token;
  const dataset = `/api/datasets/${t.datasetId}`;

  // E9: wait for the ingest worker to finish every acknowledged upload.
  const drain = startTimer();
  const settled = new Map<string, DocumentState>();
  const waiting = () => ledger.uploads.filter((u) => u.acknowledged && !settled.has(u.documentId));
  options.progress(`waiting for ${waiting().length} uploads to be ingested`);
  while (waiting().length > 0 && drain() < options.ingestTimeoutMs) {
    for (const u of waiting()) {
      const doc = await t.http.get<DocumentState>(`${dataset}/documents/${u.documentId}`, {
        token,
      });
      if (doc.body.status === "ready" || doc.body.status === "failed") {
        settled.set(u.documentId, doc.body);
      }
    }
    if (waiting().length > 0) await new Promise((r) => setTimeout(r, 500));
  }
  const drainMs = drain();
  const unsettled = waiting().map((u) => u.documentId);

  const ids = [
    ...ledger.upserts.map((u) => u.documentId),
    ...ledger.uploads.map((u) => u.documentId),
  ];
  const stored = await storedTexts(t, options.databaseUrl, ids);
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

  const upserts = {
    attempted: ledger.upserts.length,
    acknowledged: 0,
    exact: 0,
    lost: [] as string[],
    wrong: [] as string[],
    /** not acknowledged, yet stored whole (the reply was lost, not the write) */
    unacknowledged_stored: 0,
    unacknowledged_partial: [] as string[],
  };
  for (const u of ledger.upserts) {
    const rows = stored.get(u.documentId) ?? [];
    if (u.acknowledged) {
      upserts.acknowledged++;
      if (same(rows, u.texts)) upserts.exact++;
      else if (rows.length === 0) upserts.lost.push(u.documentId);
      else upserts.wrong.push(`${u.documentId}: ${rows.length}/${u.texts.length} rows`);
    } else if (same(rows, u.texts)) upserts.unacknowledged_stored++;
    else if (rows.length > 0) upserts.unacknowledged_partial.push(u.documentId);
  }

  const uploads = {
    attempted: ledger.uploads.length,
    acknowledged: 0,
    ready_exact: 0,
    rows_expected: 0,
    rows_stored: 0,
    not_ready_in_time: unsettled,
    failed: [] as string[],
    wrong: [] as string[],
    drain_s: Math.round(drainMs / 100) / 10,
  };
  for (const u of ledger.uploads) {
    if (!u.acknowledged) continue;
    uploads.acknowledged++;
    const rows = stored.get(u.documentId) ?? [];
    uploads.rows_expected += u.file.rows.length;
    uploads.rows_stored += rows.length;
    const doc = settled.get(u.documentId);
    if (!doc) continue;
    if (doc.status === "failed") uploads.failed.push(`${u.documentId}: ${doc.error}`);
    else if (same(rows, u.file.rows) && doc.row_count === rows.length) uploads.ready_exact++;
    else uploads.wrong.push(`${u.documentId}: ${rows.length}/${u.file.rows.length} rows`);
  }

  // E4: the logs of both endpoints, every page.
  const logs = new Map<string, { user_id: string; status: string }>();
  const logsPerUser = new Map<string, number>();
  for (const endpointId of new Set(ledger.completions.map((c) => c.endpointId))) {
    for (let page = 1; ; page++) {
      const reply = await t.http.get<{ id: string; user_id: string; status: string }[]>(
        `/endpoints/${endpointId}/logs`,
        { token, query: { page, page_size: 1000 } },
      );
      for (const log of reply.body) {
        logs.set(log.id, log);
        logsPerUser.set(log.user_id, (logsPerUser.get(log.user_id) ?? 0) + 1);
      }
      if (reply.body.length < 1000) break;
    }
  }
  const completions = {
    attempted: ledger.completions.length,
    acknowledged: 0,
    logged_once_ok: 0,
    missing: [] as string[],
    duplicated: [] as string[],
    wrong_status: [] as string[],
    unacknowledged_logged: 0,
    logs_total: logs.size,
  };
  for (const c of ledger.completions) {
    const count = logsPerUser.get(c.user) ?? 0;
    if (!c.acknowledged) {
      if (count > 0) completions.unacknowledged_logged++;
      continue;
    }
    completions.acknowledged++;
    const log = c.usageId ? logs.get(c.usageId) : undefined;
    if (!log || count === 0) completions.missing.push(c.user);
    else if (count > 1) completions.duplicated.push(c.user);
    else if (JSON.parse(log.status).status !== 200) completions.wrong_status.push(c.user);
    else completions.logged_once_ok++;
  }

  const exact =
    upserts.exact === upserts.acknowledged &&
    upserts.unacknowledged_partial.length === 0 &&
    uploads.ready_exact === uploads.acknowledged &&
    completions.logged_once_ok === completions.acknowledged;
  return {
    exact,
    rows_read_with: options.databaseUrl ? "sql" : "api",
    upserts,
    uploads,
    completions,
  };
}

/** Embedded texts of each document's rows, in insertion order. */
async function storedTexts(
  t: LoadTarget,
  databaseUrl: string | undefined,
  documentIds: string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const add = (doc: string, text: string) => {
    const list = out.get(doc) ?? [];
    out.set(doc, list);
    list.push(text);
  };
  if (databaseUrl) {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const result = await db.query<{ document_id: string; text: string }>(
        "SELECT document_id, data->>'text' AS text FROM rows WHERE dataset_id = $1 AND document_id = ANY($2) ORDER BY id",
        [t.datasetId, documentIds],
      );
      for (const r of result.rows) add(r.document_id, r.text);
    } finally {
      await db.end();
    }
    return out;
  }
  for (const doc of documentIds) {
    for (let offset = 0; ; offset += 1000) {
      const page = await t.http.get<{ data: { text: string } }[]>(
        `/api/datasets/${t.datasetId}/rows`,
        {
          token: t.token,
          query: { offset, page_size: 1000, filter: JSON.stringify({ documentId: doc }) },
        },
      );
      for (const row of page.body) add(doc, row.data.text);
      if (page.body.length < 1000) break;
    }
  }
  return out;
}
