import type { QuarryApi } from "../../harness/api.ts";
import { type Summary, summarize } from "../../harness/stats.ts";
import { documentId, rowInputs } from "./workload.ts";

export interface DocumentReplacement {
  documents: number;
  rows_per_document: number;
  /** each E11's request, from its start to its reply */
  replace_ms: Summary;
}

/**
 * Replacing documents of the bench's full dataset: E11 on the id of a document the load
 * wrote, with as many new rows. A replacement removes the old rows from every structure the
 * row triggers keep and adds the new ones, in one transaction; until migration 0025 the
 * removal of the old rows' filter terms read every term in the table.
 */
export async function measureDocumentReplacement(
  api: QuarryApi,
  datasetId: string,
  options: {
    documents: number;
    loadedDocuments: number;
    rowsPerDocument: number;
    firstRow: number;
  },
  progress: (line: string) => void,
): Promise<DocumentReplacement> {
  const ms: number[] = [];
  // Spread over the loaded documents, so no replacement finds another's rows.
  const stride = Math.max(1, Math.floor(options.loadedDocuments / options.documents));
  for (let d = 0; d < options.documents; d++) {
    const rows = rowInputs(options.firstRow + d * options.rowsPerDocument, options.rowsPerDocument);
    const reply = await api.upsertRows(datasetId, {
      document_id: documentId("bench", d * stride),
      rows,
    });
    ms.push(reply.ms);
  }
  const summary = summarize(ms);
  progress(
    `replaced ${options.documents} documents of ${options.rowsPerDocument} rows: p50 ${summary.p50} ms, p95 ${summary.p95} ms`,
  );
  return {
    documents: options.documents,
    rows_per_document: options.rowsPerDocument,
    replace_ms: summary,
  };
}
