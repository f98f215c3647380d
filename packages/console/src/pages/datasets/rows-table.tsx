import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, ok } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { ConfirmedAction } from "../../components/confirmed-action.tsx";
import { type Column, DataTable } from "../../components/data-table.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Field } from "../../components/field.tsx";
import { DialogActions, FormDialog } from "../../components/form-dialog.tsx";
import { useToast } from "../../components/toasts.tsx";
import { type DatasetDetail, datasetKeys, type Row } from "./dataset-api.ts";

type UpdateRow = components["schemas"]["UpdateRow"];

/** The service's metadata keys (docs/api.md, "Service metadata keys"): shown, never edited. */
export const SERVICE_KEYS = new Set(["rowId", "documentId", "url", "chunk", "page"]);

export function userMetadata(metadata: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !SERVICE_KEYS.has(key)));
}

export function RowsTable({ dataset, rows }: { dataset: DatasetDetail; rows: Row[] }) {
  const columns = dataset.columns.map((c) => c.name);
  const headers: Column[] = [
    { label: "Row", className: "num" },
    ...columns.map((name) => ({ label: name, key: `column:${name}` })),
    { label: "Metadata" },
    { label: "Actions", hidden: true },
  ];
  return (
    <DataTable caption="Rows" columns={headers}>
      {rows.map((row) => (
        <tr key={row.id} data-row-id={row.id}>
          <td className="num mono">{row.id}</td>
          {columns.map((name) => (
            <td key={name} className="cell-text">
              <Clamped text={row.data[name] ?? ""} />
            </td>
          ))}
          <td className="cell-text">
            <MetadataList metadata={row.metadata} />
          </td>
          <td>
            <div className="row" style={{ flexWrap: "nowrap" }}>
              <EditRowDialog dataset={dataset} row={row} />
              <ConfirmedAction
                label="Delete"
                ariaLabel={`Delete row ${row.id}`}
                title={`Delete row ${row.id}?`}
                description="The row is removed from the dataset and from search."
                action={() =>
                  ok(
                    api.DELETE("/api/datasets/{id}/rows/{row_id}", {
                      params: { path: { id: dataset.id, row_id: String(row.id) } },
                    }),
                  )
                }
                doneMessage={`Row ${row.id} deleted`}
                invalidates={datasetKeys.one(dataset.id)}
              />
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

const CLAMP = 400;

/** Long cells show their start; the rest on request (a row may hold 100,000 characters). */
function Clamped({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  if (text.length <= CLAMP) return <>{text}</>;
  return (
    <>
      {open ? text : `${text.slice(0, CLAMP)}…`}{" "}
      <button type="button" className="link" onClick={() => setOpen(!open)}>
        {open ? "Show less" : `Show all ${text.length.toLocaleString()} characters`}
      </button>
    </>
  );
}

export function MetadataList({ metadata }: { metadata: Record<string, unknown> }) {
  // The user's keys first, then the service's (rowId, documentId, url, chunk, page).
  const entries = Object.entries(metadata).sort(
    ([a], [b]) => Number(SERVICE_KEYS.has(a)) - Number(SERVICE_KEYS.has(b)),
  );
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="meta">
      {entries.map(([key, value]) => (
        <div key={key} style={{ display: "contents" }}>
          <dt>{key}</dt>
          <dd className="mono">{typeof value === "string" ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function EditRowDialog({ dataset, row }: { dataset: DatasetDetail; row: Row }) {
  return (
    <FormDialog
      title={`Edit row ${row.id}`}
      trigger={
        <button type="button" aria-label={`Edit row ${row.id}`}>
          Edit
        </button>
      }
    >
      {(close) => <EditRowForm dataset={dataset} row={row} onDone={close} />}
    </FormDialog>
  );
}

/**
 * E8: the columns' text and the user metadata as JSON. Both merge into the stored row; the
 * row is re-embedded when its embedded text changes. The API's 400 shows in the dialog.
 */
function EditRowForm({
  dataset,
  row,
  onDone,
}: {
  dataset: DatasetDetail;
  row: Row;
  onDone: () => void;
}) {
  const queries = useQueryClient();
  const toast = useToast();
  const metadataId = useId();
  const baseId = useId();
  const [data, setData] = useState<Record<string, string>>(() =>
    Object.fromEntries(dataset.columns.map((c) => [c.name, row.data[c.name] ?? ""])),
  );
  const [metadataText, setMetadataText] = useState(() =>
    JSON.stringify(userMetadata(row.metadata), null, 2),
  );
  const [parseError, setParseError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: UpdateRow) =>
      ok(
        api.PATCH("/api/datasets/{id}/rows/{row_id}", {
          params: { path: { id: dataset.id, row_id: String(row.id) } },
          body,
        }),
      ),
    onSuccess: () => {
      toast(`Row ${row.id} saved`);
      queries.invalidateQueries({ queryKey: datasetKeys.one(dataset.id) });
      onDone();
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    let metadata: unknown;
    try {
      metadata = JSON.parse(metadataText || "{}");
    } catch (error) {
      setParseError(`Metadata is not JSON: ${(error as Error).message}`);
      return;
    }
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
      setParseError('Metadata must be a JSON object, like {"year": 2024}.');
      return;
    }
    setParseError(null);
    // Only changed cells: an unchanged embedded text is not re-embedded.
    const changed = Object.fromEntries(
      Object.entries(data).filter(([name, text]) => text !== (row.data[name] ?? "")),
    );
    save.mutate({ data: changed, metadata: metadata as UpdateRow["metadata"] });
  }

  return (
    <form className="stack" onSubmit={submit}>
      {dataset.columns.map((column, index) => (
        <Field
          key={column.name}
          id={`${baseId}-${index}`}
          label={
            <>
              {column.name}
              {column.embed && <span className="muted small"> (embedded)</span>}
            </>
          }
        >
          <textarea
            id={`${baseId}-${index}`}
            rows={5}
            value={data[column.name] ?? ""}
            onChange={(e) => setData({ ...data, [column.name]: e.target.value })}
          />
        </Field>
      ))}
      <Field id={metadataId} label="Metadata (JSON; keys are merged into the row's)">
        <textarea
          id={metadataId}
          className="mono"
          rows={5}
          value={metadataText}
          onChange={(e) => setMetadataText(e.target.value)}
          aria-invalid={parseError !== null}
        />
      </Field>
      {parseError && (
        <div className="notice error" role="alert">
          <p>{parseError}</p>
        </div>
      )}
      {save.error && <ErrorNotice error={save.error} />}
      <DialogActions label="Save row" pendingLabel="Saving…" pending={save.isPending} />
    </form>
  );
}
