import { Link } from "wouter";
import { api, ok } from "../../api/client.ts";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { PagedQuery } from "../../components/paged-query.tsx";
import { useKeysetPagedQuery } from "../../components/use-keyset-paged-query.ts";
import {
  datasetKeys,
  INGEST_POLL_MS,
  isIngesting,
  type Row,
  useDataset,
  useDocument,
} from "./dataset-api.ts";
import { formatCount, formatDate } from "./format.ts";
import { IngestStatus } from "./ingest-progress.tsx";
import { RowsTable } from "./rows-table.tsx";

const PAGE_SIZE = 25;

/**
 * A document and a page of its rows (E6 filtered by the service key `documentId`), paged by
 * `after` the last row shown, so that a deep page of a large document costs what the first does.
 */
export function DocumentPage({ datasetId, documentId }: { datasetId: string; documentId: string }) {
  const dataset = useDataset(datasetId);
  const document = useDocument(datasetId, documentId);
  const ingesting = document.data ? isIngesting(document.data) : false;
  const rows = useKeysetPagedQuery<Row>(
    PAGE_SIZE,
    (row) => row.id,
    (after) => ({
      queryKey: datasetKeys.rows(datasetId, documentId, after ?? null, PAGE_SIZE),
      queryFn: () =>
        ok(
          api.GET("/api/datasets/{id}/rows", {
            params: {
              path: { id: datasetId },
              query: {
                ...(after === undefined ? {} : { after: String(after) }),
                page_size: String(PAGE_SIZE),
                filter: JSON.stringify({ documentId }),
              },
            },
          }),
        ),
      refetchInterval: ingesting ? INGEST_POLL_MS * 3 : false,
    }),
  );

  return (
    <section className="stack" aria-labelledby="document-title">
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/datasets">Datasets</Link> /{" "}
        <Link href={`/datasets/${datasetId}`}>{dataset.data?.name ?? datasetId}</Link>
      </nav>
      <h1 id="document-title" className="cell-text">
        {document.data?.filename ?? documentId}
      </h1>
      {document.isPending ? (
        <Loading what="Loading document" />
      ) : document.isError ? (
        <ErrorNotice error={document.error} onRetry={() => document.refetch()} />
      ) : (
        <dl className="meta">
          <dt>Id</dt>
          <dd className="mono">{document.data.id}</dd>
          <dt>Status</dt>
          <dd>
            <IngestStatus document={document.data} />
          </dd>
          <dt>Rows</dt>
          <dd>{formatCount(document.data.row_count)}</dd>
          {document.data.url && (
            <>
              <dt>URL</dt>
              <dd className="mono">{document.data.url}</dd>
            </>
          )}
          <dt>Created</dt>
          <dd>{formatDate(document.data.created_at)}</dd>
        </dl>
      )}
      <h2>Rows</h2>
      {dataset.isError ? (
        <ErrorNotice error={dataset.error} />
      ) : (
        <PagedQuery
          list={rows}
          loading="Loading rows"
          empty={
            <Empty title={ingesting ? "Rows appear as the document is ingested" : "No rows"} />
          }
          pagesLabel="Row pages"
        >
          {(page) =>
            dataset.data ? (
              <RowsTable dataset={dataset.data} rows={page} />
            ) : (
              <Loading what="Loading rows" />
            )
          }
        </PagedQuery>
      )}
    </section>
  );
}
