import { Tabs } from "radix-ui";
import { Link } from "wouter";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { AddDocuments } from "./add-documents.tsx";
import { useDataset } from "./dataset-api.ts";
import { DocumentsTable } from "./documents-table.tsx";
import { formatCount } from "./format.ts";

export function DatasetPage({ datasetId }: { datasetId: string }) {
  const dataset = useDataset(datasetId);
  if (dataset.isPending) return <Loading what="Loading dataset" />;
  if (dataset.isError)
    return (
      <div className="stack">
        <Breadcrumbs />
        <ErrorNotice error={dataset.error} onRetry={() => dataset.refetch()} />
      </div>
    );
  const d = dataset.data;
  return (
    <section className="stack" aria-labelledby="dataset-title">
      <Breadcrumbs />
      <div className="row between">
        <h1 id="dataset-title">{d.name}</h1>
        <Link href={`/search?dataset=${encodeURIComponent(d.id)}`}>Search this dataset →</Link>
      </div>
      <dl className="meta">
        <dt>Id</dt>
        <dd className="mono">{d.id}</dd>
        <dt>Kind</dt>
        <dd>{d.kind}</dd>
        <dt>Columns</dt>
        <dd>
          {d.columns.map((c) => `${c.name}${c.embed ? " (embedded)" : ""}`).join(", ") || "—"}
        </dd>
        <dt>Metadata columns</dt>
        <dd>{d.metadata_columns.map((c) => `${c.name}: ${c.type}`).join(", ") || "—"}</dd>
        <dt>Embedding model</dt>
        <dd className="mono">
          {d.embedding_model} ({d.dimensions} dimensions)
        </dd>
        <dt>Documents</dt>
        <dd>{formatCount(d.document_count)}</dd>
        <dt>Rows</dt>
        <dd>{formatCount(d.row_count)}</dd>
      </dl>
      <Tabs.Root defaultValue="documents">
        <Tabs.List className="tabs-list" aria-label="Dataset">
          <Tabs.Trigger value="documents">Documents</Tabs.Trigger>
          <Tabs.Trigger value="add">Add documents</Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="documents">
          <DocumentsTable datasetId={d.id} />
        </Tabs.Content>
        <Tabs.Content value="add">
          <AddDocuments datasetId={d.id} />
        </Tabs.Content>
      </Tabs.Root>
    </section>
  );
}

function Breadcrumbs() {
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumbs">
      <Link href="/datasets">Datasets</Link>
    </nav>
  );
}
