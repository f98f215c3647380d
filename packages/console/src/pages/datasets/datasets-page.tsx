import { Link } from "wouter";
import { api, ok } from "../../api/client.ts";
import { ConfirmedAction } from "../../components/confirmed-action.tsx";
import { ACTIONS_COLUMN, CREATED_COLUMN } from "../../components/data-table.tsx";
import { Empty } from "../../components/empty.tsx";
import { PageSection } from "../../components/page-section.tsx";
import { PagedTable, type TableSpec } from "../../components/paged-table.tsx";
import { CreateDatasetDialog } from "./create-dataset-dialog.tsx";
import { datasetKeys, useDatasets } from "./dataset-api.ts";
import { formatCount, formatDate } from "./format.ts";

const PAGE_SIZE = 50;

export function DatasetsPage() {
  const datasets = useDatasets(PAGE_SIZE);
  return (
    <PageSection title="Datasets" actions={<CreateDatasetDialog />}>
      <PagedTable
        list={datasets}
        table={DATASETS}
        empty={
          <Empty title="No datasets yet">
            <p>Create one to upload documents and search them.</p>
          </Empty>
        }
      >
        {(dataset) => (
          <tr key={dataset.id}>
            <td>
              <Link href={`/datasets/${dataset.id}`}>{dataset.name}</Link>
              <div className="muted small mono">{dataset.id}</div>
            </td>
            <td>{dataset.kind}</td>
            <td className="num">{formatCount(dataset.document_count)}</td>
            <td className="num">{formatCount(dataset.row_count)}</td>
            <td className="hide-narrow mono small">{dataset.embedding_model}</td>
            <td className="hide-narrow small">{formatDate(dataset.created_at)}</td>
            <td>
              <ConfirmedAction
                label="Delete"
                pendingLabel="Deleting…"
                ariaLabel={`Delete ${dataset.name}`}
                title={`Delete dataset ${dataset.name}?`}
                description="Its documents, rows and stored files are deleted for good. Endpoints that search it will fail until they are changed."
                confirmLabel="Delete dataset"
                action={() =>
                  ok(api.DELETE("/api/datasets/{id}", { params: { path: { id: dataset.id } } }))
                }
                doneMessage={`Dataset ${dataset.name} deleted`}
                invalidates={datasetKeys.all}
              />
            </td>
          </tr>
        )}
      </PagedTable>
    </PageSection>
  );
}

const DATASETS: TableSpec = {
  caption: "Datasets",
  columns: [
    { label: "Name" },
    { label: "Kind" },
    { label: "Documents", className: "num" },
    { label: "Rows", className: "num" },
    { label: "Embedding model", className: "hide-narrow" },
    CREATED_COLUMN,
    ACTIONS_COLUMN,
  ],
  loading: "Loading datasets",
  pagesLabel: "Dataset pages",
};
