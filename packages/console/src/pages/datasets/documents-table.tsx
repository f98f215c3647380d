import { Link } from "wouter";
import { api, ok } from "../../api/client.ts";
import { ConfirmedAction } from "../../components/confirmed-action.tsx";
import { ACTIONS_COLUMN, CREATED_COLUMN } from "../../components/data-table.tsx";
import { Empty } from "../../components/empty.tsx";
import { PagedTable, type TableSpec } from "../../components/paged-table.tsx";
import { usePagedQuery } from "../../components/use-paged-query.ts";
import { type Document, datasetKeys, INGEST_POLL_MS, isIngesting } from "./dataset-api.ts";
import { formatCount, formatDate } from "./format.ts";
import { IngestStatus } from "./ingest-progress.tsx";

const PAGE_SIZE = 50;

const DOCUMENTS: TableSpec = {
  caption: "Documents",
  columns: [
    { label: "Document" },
    { label: "Status" },
    { label: "Rows", className: "num" },
    CREATED_COLUMN,
    ACTIONS_COLUMN,
  ],
  loading: "Loading documents",
  pagesLabel: "Document pages",
};

/** A page of the dataset's documents, polled while any of them is being ingested. */
export function DocumentsTable({ datasetId }: { datasetId: string }) {
  const documents = usePagedQuery<Document>(PAGE_SIZE, (offset) => ({
    queryKey: datasetKeys.documentList(datasetId, offset, PAGE_SIZE),
    queryFn: () =>
      ok(
        api.GET("/api/datasets/{id}/documents", {
          params: { path: { id: datasetId }, query: { offset, page_size: PAGE_SIZE } },
        }),
      ),
    refetchInterval: (query) => (query.state.data?.some(isIngesting) ? INGEST_POLL_MS : false),
  }));
  return (
    <PagedTable
      list={documents}
      table={DOCUMENTS}
      empty={
        <Empty title="No documents yet">
          <p>Upload files, or add a URL or text, under “Add documents”.</p>
        </Empty>
      }
    >
      {(document) => (
        <tr key={document.id} data-document-id={document.id}>
          <td className="cell-text">
            <Link href={`/datasets/${datasetId}/documents/${encodeURIComponent(document.id)}`}>
              {document.filename ?? document.id}
            </Link>
            {document.filename && <div className="muted small mono">{document.id}</div>}
          </td>
          <td>
            <IngestStatus document={document} />
          </td>
          <td className="num">{formatCount(document.row_count)}</td>
          <td className="hide-narrow small">{formatDate(document.created_at)}</td>
          <td>
            <DeleteDocument datasetId={datasetId} document={document} />
          </td>
        </tr>
      )}
    </PagedTable>
  );
}

function DeleteDocument({ datasetId, document }: { datasetId: string; document: Document }) {
  const name = document.filename ?? document.id;
  return (
    <ConfirmedAction
      label="Delete"
      ariaLabel={`Delete ${name}`}
      title={`Delete ${name}?`}
      description="The document, its rows and its stored file are deleted for good."
      action={() =>
        ok(
          api.DELETE("/api/datasets/{id}/documents/{document_id}", {
            params: { path: { id: datasetId, document_id: document.id } },
          }),
        )
      }
      doneMessage={`Document ${name} deleted`}
      invalidates={datasetKeys.one(datasetId)}
    />
  );
}
