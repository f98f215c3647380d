import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { api, ok } from "../../api/client.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { Pagination } from "../../components/pagination.tsx";
import { useToast } from "../../components/toasts.tsx";
import { type Document, datasetKeys, INGEST_POLL_MS, isIngesting } from "./dataset-api.ts";
import { formatCount, formatDate } from "./format.ts";
import { IngestStatus } from "./ingest-progress.tsx";

const PAGE_SIZE = 50;

/** A page of the dataset's documents, polled while any of them is being ingested. */
export function DocumentsTable({ datasetId }: { datasetId: string }) {
  const [offset, setOffset] = useState(0);
  const documents = useQuery({
    queryKey: datasetKeys.documentList(datasetId, offset, PAGE_SIZE),
    queryFn: () =>
      ok(
        api.GET("/api/datasets/{id}/documents", {
          params: { path: { id: datasetId }, query: { offset, page_size: PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.some(isIngesting) ? INGEST_POLL_MS : false),
  });
  if (documents.isPending) return <Loading what="Loading documents" />;
  if (documents.isError)
    return <ErrorNotice error={documents.error} onRetry={() => documents.refetch()} />;
  if (documents.data.length === 0 && offset === 0)
    return (
      <Empty title="No documents yet">
        <p>Upload files, or add a URL or text, under “Add documents”.</p>
      </Empty>
    );
  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Documents</caption>
          <thead>
            <tr>
              <th scope="col">Document</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Rows
              </th>
              <th scope="col" className="hide-narrow">
                Created
              </th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {documents.data.map((document) => (
              <tr key={document.id} data-document-id={document.id}>
                <td className="cell-text">
                  <Link
                    href={`/datasets/${datasetId}/documents/${encodeURIComponent(document.id)}`}
                  >
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
            ))}
          </tbody>
        </table>
      </div>
      <Pagination
        offset={offset}
        pageSize={PAGE_SIZE}
        shown={documents.data.length}
        onChange={setOffset}
        label="Document pages"
      />
    </>
  );
}

function DeleteDocument({ datasetId, document }: { datasetId: string; document: Document }) {
  const queries = useQueryClient();
  const toast = useToast();
  const name = document.filename ?? document.id;
  const remove = useMutation({
    mutationFn: () =>
      ok(
        api.DELETE("/api/datasets/{id}/documents/{document_id}", {
          params: { path: { id: datasetId, document_id: document.id } },
        }),
      ),
    onSuccess: () => {
      toast(`Document ${name} deleted`);
      queries.invalidateQueries({ queryKey: datasetKeys.one(datasetId) });
    },
  });
  return (
    <>
      <ConfirmDialog
        trigger={
          <button type="button" disabled={remove.isPending} aria-label={`Delete ${name}`}>
            Delete
          </button>
        }
        title={`Delete ${name}?`}
        description={<p>The document, its rows and its stored file are deleted for good.</p>}
        onConfirm={() => remove.mutate()}
      />
      {remove.error && <ErrorNotice error={remove.error} />}
    </>
  );
}
