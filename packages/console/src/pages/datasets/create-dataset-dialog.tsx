import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Dialog } from "radix-ui";
import { type FormEvent, useId, useState } from "react";
import { useLocation } from "wouter";
import { api, ok } from "../../api/client.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { type CreateDataset, datasetKeys } from "./dataset-api.ts";

type MetadataType = NonNullable<CreateDataset["metadata_columns"]>[number]["type"];
const METADATA_TYPES: MetadataType[] = ["string", "number", "boolean", "string[]"];

interface ColumnDraft {
  key: number;
  name: string;
  embed: boolean;
}
interface MetadataDraft {
  key: number;
  name: string;
  type: MetadataType;
}

let nextKey = 1;

/**
 * Create a dataset (kind, columns, metadata columns, embedding model). Blank optional fields
 * are left out so the API's defaults apply (one embedded `text` column, the deployment's
 * model); the API's 400 message is shown in the dialog.
 */
export function CreateDatasetDialog() {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button type="button" className="primary">
          New dataset
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" aria-describedby={undefined}>
          <Dialog.Title>New dataset</Dialog.Title>
          {open && <CreateDatasetForm onDone={() => setOpen(false)} />}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function CreateDatasetForm({ onDone }: { onDone: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const ids = { name: useId(), model: useId() };
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"standard" | "hybrid">("hybrid");
  const [model, setModel] = useState("");
  const [columns, setColumns] = useState<ColumnDraft[]>([{ key: 0, name: "text", embed: true }]);
  const [metadata, setMetadata] = useState<MetadataDraft[]>([]);
  const create = useMutation({
    mutationFn: (body: CreateDataset) => ok(api.POST("/api/datasets", { body })),
    onSuccess: (dataset) => {
      queries.invalidateQueries({ queryKey: datasetKeys.all });
      onDone();
      navigate(`/datasets/${dataset.id}`);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const body: CreateDataset = {
      name: name.trim(),
      kind,
      columns: columns
        .filter((c) => c.name.trim())
        .map((c) => ({ name: c.name.trim(), type: "text", embed: c.embed })),
    };
    const declared = metadata.filter((m) => m.name.trim());
    if (declared.length > 0)
      body.metadata_columns = declared.map((m) => ({ name: m.name.trim(), type: m.type }));
    if (model.trim()) body.embedding_model = model.trim();
    create.mutate(body);
  }

  return (
    <form className="stack" onSubmit={submit}>
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          autoComplete="off"
        />
      </div>
      <fieldset className="segmented">
        <legend>Kind</legend>
        {(["hybrid", "standard"] as const).map((k) => (
          <label key={k}>
            <input
              type="radio"
              name="kind"
              value={k}
              checked={kind === k}
              onChange={() => setKind(k)}
            />
            {k === "hybrid" ? "Hybrid (semantic + keyword)" : "Standard (semantic)"}
          </label>
        ))}
      </fieldset>
      <fieldset className="stack">
        <legend>Columns</legend>
        {columns.map((column, index) => (
          <div className="row" key={column.key}>
            <input
              aria-label={`Column ${index + 1} name`}
              className="grow"
              value={column.name}
              onChange={(e) =>
                setColumns(
                  columns.map((c) => (c.key === column.key ? { ...c, name: e.target.value } : c)),
                )
              }
            />
            <label className="check">
              <input
                type="checkbox"
                checked={column.embed}
                onChange={(e) =>
                  setColumns(
                    columns.map((c) =>
                      c.key === column.key ? { ...c, embed: e.target.checked } : c,
                    ),
                  )
                }
              />
              Embedded
            </label>
            <button
              type="button"
              aria-label={`Remove column ${column.name || index + 1}`}
              onClick={() => setColumns(columns.filter((c) => c.key !== column.key))}
            >
              Remove
            </button>
          </div>
        ))}
        <div>
          <button
            type="button"
            onClick={() => setColumns([...columns, { key: nextKey++, name: "", embed: false }])}
          >
            Add column
          </button>
        </div>
      </fieldset>
      <fieldset className="stack">
        <legend>Metadata columns (typed, optional)</legend>
        {metadata.map((column, index) => (
          <div className="row" key={column.key}>
            <input
              aria-label={`Metadata column ${index + 1} name`}
              className="grow"
              value={column.name}
              onChange={(e) =>
                setMetadata(
                  metadata.map((m) => (m.key === column.key ? { ...m, name: e.target.value } : m)),
                )
              }
            />
            <select
              aria-label={`Metadata column ${index + 1} type`}
              value={column.type}
              style={{ width: "auto" }}
              onChange={(e) =>
                setMetadata(
                  metadata.map((m) =>
                    m.key === column.key ? { ...m, type: e.target.value as MetadataType } : m,
                  ),
                )
              }
            >
              {METADATA_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
            <button
              type="button"
              aria-label={`Remove metadata column ${column.name || index + 1}`}
              onClick={() => setMetadata(metadata.filter((m) => m.key !== column.key))}
            >
              Remove
            </button>
          </div>
        ))}
        <div>
          <button
            type="button"
            onClick={() => setMetadata([...metadata, { key: nextKey++, name: "", type: "string" }])}
          >
            Add metadata column
          </button>
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor={ids.model}>Embedding model</label>
        <input
          id={ids.model}
          value={model}
          placeholder="the deployment's default (e.g. local/hash, openai/text-embedding-3-small)"
          onChange={(e) => setModel(e.target.value)}
          autoComplete="off"
        />
      </div>
      {create.error && <ErrorNotice error={create.error} />}
      <div className="row end">
        <Dialog.Close asChild>
          <button type="button">Cancel</button>
        </Dialog.Close>
        <button type="submit" className="primary" disabled={create.isPending || !name.trim()}>
          {create.isPending ? "Creating…" : "Create dataset"}
        </button>
      </div>
    </form>
  );
}
