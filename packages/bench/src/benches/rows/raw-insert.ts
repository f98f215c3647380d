import { createEmbedder } from "@quarry/providers";
import type pg from "pg";
import { explainAnalyze, type PlanSummary } from "../../harness/explain.ts";
import { startTimer } from "../../harness/stats.ts";
import { workloadRow } from "./workload.ts";

/**
 * The raw-SQL side of the comparison: the same rows as the HTTP upsert, written as ONE
 * INSERT statement per batch over `pg`, with embeddings computed beforehand by the same
 * `local/hash` embedder (outside the timed part) and `fts` computed by the database, so the
 * database does the same work: the same row content, `metadata` with `documentId` and
 * `rowId` (the id drawn from the rows sequence inside the statement), the same indexes.
 * See `packages/core/src/rows/insert-rows.ts` for what the service writes.
 */
export interface RawInserter {
  /** inserts rows first..first+count-1 under `documentId`; returns the statement's milliseconds */
  insertBatch(documentId: string, first: number, count: number): Promise<number>;
  /**
   * The same insert under EXPLAIN ANALYZE, rolled back: where a batch's time goes (the
   * statement itself, each trigger that keeps the search structures)
   */
  explainBatch(documentId: string, first: number, count: number): Promise<PlanSummary>;
}

const COLUMNS_PER_ROW = 4;

function insertSql(count: number): string {
  const values = Array.from({ length: count }, (_, r) => {
    const p = 4 + r * COLUMNS_PER_ROW;
    return `($${p}::jsonb, $${p + 1}::jsonb, $${p + 2}::vector, $${p + 3}::text)`;
  });
  return `INSERT INTO rows (id, project_id, dataset_id, document_id, data, metadata, embedding, fts)
SELECT v.id, $1, $2, $3, v.data, v.metadata || jsonb_build_object('rowId', v.id), v.embedding,
       to_tsvector('english', v.body)
FROM (SELECT nextval(pg_get_serial_sequence('rows', 'id')) AS id, t.*
      FROM (VALUES ${values.join(", ")}) AS t(data, metadata, embedding, body)) AS v`;
}

export function createRawInserter(
  client: pg.Client,
  target: { projectId: string; datasetId: string },
): RawInserter {
  const embedder = createEmbedder("local/hash", {});
  const statements = new Map<number, string>();
  /** the statement and its parameters for rows first..first+count-1 */
  const prepare = async (documentId: string, first: number, count: number) => {
    const rows = Array.from({ length: count }, (_, k) => workloadRow(first + k));
    const vectors = await embedder.embed(rows.map((r) => r.text));
    const params: unknown[] = [target.projectId, target.datasetId, documentId];
    rows.forEach((row, k) => {
      params.push(
        JSON.stringify({ text: row.text }),
        JSON.stringify({ ...row.metadata, documentId }),
        `[${(vectors[k] as number[]).join(",")}]`,
        row.text,
      );
    });
    let sql = statements.get(count);
    if (!sql) {
      sql = insertSql(count);
      statements.set(count, sql);
    }
    return { sql, params };
  };
  return {
    async insertBatch(documentId, first, count) {
      const { sql, params } = await prepare(documentId, first, count);
      const elapsed = startTimer();
      await client.query(sql, params);
      return elapsed();
    },
    async explainBatch(documentId, first, count) {
      const { sql, params } = await prepare(documentId, first, count);
      await client.query("BEGIN");
      try {
        return await explainAnalyze(client, sql, params);
      } finally {
        await client.query("ROLLBACK");
      }
    },
  };
}
