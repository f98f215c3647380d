import type { QuarryApi, RowInput } from "../../harness/api.ts";
import { round, type Summary, summarize } from "../../harness/stats.ts";
import { documentId, rowInputs } from "./workload.ts";

/** Rows per request while a large document is written (E11's and E13's most). */
const WRITE_BATCH = 1000;

/**
 * The bench's texts share one small vocabulary; a catalog or a log has identifiers of its own
 * in every row. Two per row make the document's postings as many as its rows, so a deletion
 * empties 10,000 of them rather than the few hundred of the shared words.
 */
function withOwnCodes(rows: RowInput[], first: number): RowInput[] {
  return rows.map((row, i) => {
    const n = first + i;
    const codes = `ref ${n.toString(36)}q lot ${(n * 7919).toString(36)}z`;
    return { ...row, data: { ...row.data, text: `${row.data.text} ${codes}` } };
  });
}

export interface DocumentDeletion {
  documents: number;
  rows_per_document: number;
  /** each deletion's request, from its start to its 204 */
  delete_ms: Summary;
  delete_rows_per_s: number;
}

/**
 * Deleting large documents from the bench's full dataset: each is written (E11, then E13
 * appends) and deleted whole. A deletion takes its rows out of every structure the row
 * triggers keep, in one statement; its keyword postings went, until migration 0023, through a
 * join Postgres planned quadratic in the postings a deletion empties (31 s for 3,999 rows).
 */
export async function measureDocumentDeletion(
  api: QuarryApi,
  datasetId: string,
  options: { documents: number; rowsPerDocument: number; firstRow: number },
  progress: (line: string) => void,
): Promise<DocumentDeletion> {
  const ms: number[] = [];
  for (let d = 0; d < options.documents; d++) {
    const id = documentId("deleted", d);
    const first = options.firstRow + d * options.rowsPerDocument;
    for (let written = 0; written < options.rowsPerDocument; written += WRITE_BATCH) {
      const rows = withOwnCodes(
        rowInputs(first + written, Math.min(WRITE_BATCH, options.rowsPerDocument - written)),
        first + written,
      );
      if (written === 0) await api.upsertRows(datasetId, { document_id: id, rows });
      else await api.addRows(datasetId, id, rows);
    }
    const reply = await api.deleteDocument(datasetId, id);
    ms.push(reply.ms);
    progress(`deleted a ${options.rowsPerDocument}-row document in ${round(reply.ms, 1)} ms`);
  }
  const summary = summarize(ms);
  return {
    documents: options.documents,
    rows_per_document: options.rowsPerDocument,
    delete_ms: summary,
    delete_rows_per_s: round((options.rowsPerDocument * 1000) / summary.mean, 0),
  };
}
