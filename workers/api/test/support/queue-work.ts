import { inject } from "vitest";
import { withSql } from "./database-fingerprint.ts";

/**
 * What the stack's ingest worker has on its hands, for the message of a test that timed out
 * waiting on it: the stack's one queue consumer takes one message at a time for every e2e
 * file, so a wait may be spent behind other files' uploads rather than on the awaited work.
 * The workers' own log is not kept at this level (`--log-level warn`), the database is.
 */
export async function ingestWorkerState(datasetId: string): Promise<string> {
  if (!inject("databaseUrl")) return "(the stack's database is not known)";
  return withSql(async (sql) => {
    const uploads = await sql.query<{ status: string; documents: number; datasets: number }>(
      `select status, count(*)::int as documents, count(distinct dataset_id)::int as datasets
       from documents where status in ('queued', 'processing') group by status`,
    );
    const [vectors] = await sql.query<{ backlog: number; graph: number }>(
      `select (select count(*) from vector_backlog where dataset_id = $1)::int as backlog,
              (select count(*) from indexed_vectors where dataset_id = $1)::int as graph`,
      [datasetId],
    );
    const busy = uploads.map((u) => `${u.documents} ${u.status} (${u.datasets} datasets)`);
    return [
      `uploads under way in the stack: ${busy.length > 0 ? busy.join(", ") : "none"}`,
      `dataset ${datasetId}: ${vectors?.backlog} rows in the backlog, ${vectors?.graph} in the graph`,
    ].join("\n");
  });
}
