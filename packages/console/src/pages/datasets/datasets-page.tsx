import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { api, ok } from "../../api/client.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { Pagination } from "../../components/pagination.tsx";
import { useToast } from "../../components/toasts.tsx";
import { CreateDatasetDialog } from "./create-dataset-dialog.tsx";
import { type Dataset, datasetKeys, useDatasets } from "./dataset-api.ts";
import { formatCount, formatDate } from "./format.ts";

const PAGE_SIZE = 50;

export function DatasetsPage() {
  const [offset, setOffset] = useState(0);
  const datasets = useDatasets(offset, PAGE_SIZE);
  return (
    <section className="stack" aria-labelledby="datasets-title">
      <div className="row between">
        <h1 id="datasets-title">Datasets</h1>
        <CreateDatasetDialog />
      </div>
      {datasets.isPending ? (
        <Loading what="Loading datasets" />
      ) : datasets.isError ? (
        <ErrorNotice error={datasets.error} onRetry={() => datasets.refetch()} />
      ) : datasets.data.length === 0 && offset === 0 ? (
        <Empty title="No datasets yet">
          <p>Create one to upload documents and search them.</p>
        </Empty>
      ) : (
        <>
          <DatasetTable datasets={datasets.data} />
          <Pagination
            offset={offset}
            pageSize={PAGE_SIZE}
            shown={datasets.data.length}
            onChange={setOffset}
            label="Dataset pages"
          />
        </>
      )}
    </section>
  );
}

function DatasetTable({ datasets }: { datasets: Dataset[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Datasets</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col" className="num">
              Documents
            </th>
            <th scope="col" className="num">
              Rows
            </th>
            <th scope="col" className="hide-narrow">
              Embedding model
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
          {datasets.map((dataset) => (
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
                <DeleteDataset dataset={dataset} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeleteDataset({ dataset }: { dataset: Dataset }) {
  const queries = useQueryClient();
  const toast = useToast();
  const [error, setError] = useState<unknown>(null);
  const remove = useMutation({
    mutationFn: () =>
      ok(api.DELETE("/api/datasets/{id}", { params: { path: { id: dataset.id } } })),
    onSuccess: () => {
      toast(`Dataset ${dataset.name} deleted`);
      queries.invalidateQueries({ queryKey: datasetKeys.all });
    },
    onError: setError,
  });
  return (
    <>
      <ConfirmDialog
        trigger={
          <button type="button" disabled={remove.isPending} aria-label={`Delete ${dataset.name}`}>
            {remove.isPending ? "Deleting…" : "Delete"}
          </button>
        }
        title={`Delete dataset ${dataset.name}?`}
        description={
          <p>
            Its documents, rows and stored files are deleted for good. Endpoints that search it will
            fail until they are changed.
          </p>
        }
        confirmLabel="Delete dataset"
        onConfirm={() => remove.mutate()}
      />
      {error !== null && <ErrorNotice error={error} />}
    </>
  );
}
