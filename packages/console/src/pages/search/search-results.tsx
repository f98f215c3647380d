import { Link } from "wouter";
import type { components } from "../../api/schema";
import { Empty } from "../../components/empty.tsx";
import { MetadataList } from "../datasets/rows-table.tsx";
import type { SearchReply } from "./search-request.ts";

type RowResult = components["schemas"]["SearchResult"];
type DocumentResult = components["schemas"]["DocumentResult"];

/** Results of any mode, with the request's latency as the browser measured it. */
export function SearchResults({
  datasetId,
  reply,
  latencyMs,
}: {
  datasetId: string;
  reply: SearchReply;
  latencyMs: number;
}) {
  const count = reply.mode === "documents" ? reply.documents.length : reply.results.length;
  return (
    <section className="stack" aria-labelledby="results-title" aria-live="polite">
      <div className="row between">
        <h2 id="results-title">
          {count} {reply.mode === "documents" ? "documents" : "rows"}
        </h2>
        <span className="muted" data-testid="latency">
          {Math.round(latencyMs)} ms
        </span>
      </div>
      {reply.mode !== "rows" && <DocumentList datasetId={datasetId} documents={reply.documents} />}
      {reply.mode !== "documents" &&
        (reply.results.length === 0 ? (
          <Empty title="No rows matched" />
        ) : (
          <ol className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {reply.results.map((result, index) => (
              <RowResultItem
                // Results carry no id of their own; the service's rowId is in the metadata.
                key={String(result.metadata.rowId ?? index)}
                datasetId={datasetId}
                result={result}
              />
            ))}
          </ol>
        ))}
    </section>
  );
}

function RowResultItem({ datasetId, result }: { datasetId: string; result: RowResult }) {
  const documentId = result.metadata.documentId;
  return (
    <li className="result stack" style={{ gap: "0.35rem" }} data-testid="search-result">
      <div className="row between">
        <span className="confidence">confidence {result.confidence.toFixed(3)}</span>
        {typeof documentId === "string" && (
          <Link href={`/datasets/${datasetId}/documents/${encodeURIComponent(documentId)}`}>
            Document {documentId}
          </Link>
        )}
      </div>
      <p className="cell-text" style={{ margin: 0 }}>
        {result.embedding || Object.values(result.data).join(" · ")}
      </p>
      <MetadataList metadata={result.metadata} />
    </li>
  );
}

function DocumentList({
  datasetId,
  documents,
}: {
  datasetId: string;
  documents: DocumentResult[];
}) {
  if (documents.length === 0) return <Empty title="No documents matched" />;
  return (
    <ol className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
      {documents.map((document) => (
        <li key={document.document_id} className="result" data-testid="document-result">
          <div className="row between">
            <Link
              href={`/datasets/${datasetId}/documents/${encodeURIComponent(document.document_id)}`}
            >
              {document.filename || document.document_id}
            </Link>
            <span className="confidence">BM25 {document.similarity.toFixed(3)}</span>
          </div>
          {document.content && (
            <p className="small muted cell-text" style={{ margin: "0.25rem 0 0" }}>
              {document.content.length > 300
                ? `${document.content.slice(0, 300)}…`
                : document.content}
            </p>
          )}
          {document.url && <div className="small mono muted">{document.url}</div>}
        </li>
      ))}
    </ol>
  );
}
