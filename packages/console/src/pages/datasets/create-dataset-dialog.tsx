import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useLocation } from "wouter";
import { api, ok } from "../../api/client.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { InputField } from "../../components/field.tsx";
import { DialogActions, FormDialog } from "../../components/form-dialog.tsx";
import { ListFieldset, RemoveButton } from "../../components/list-fieldset.tsx";
import { RadioGroup } from "../../components/radio-group.tsx";
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

const KINDS = [
  { value: "hybrid", label: "Hybrid (semantic + keyword)" },
  { value: "standard", label: "Standard (semantic)" },
] as const;

let nextKey = 1;

/**
 * Create a dataset (kind, columns, metadata columns, embedding model). Blank optional fields
 * are left out so the API's defaults apply (one embedded `text` column, the deployment's
 * model); the API's 400 message is shown in the dialog.
 */
export function CreateDatasetDialog() {
  return (
    <FormDialog
      title="New dataset"
      trigger={
        <button type="button" className="primary">
          New dataset
        </button>
      }
    >
      {(close) => <CreateDatasetForm onDone={close} />}
    </FormDialog>
  );
}

/** Rows of a list being drafted, keyed for React (names may repeat or be blank). */
function useDrafts<Draft extends { key: number }>(initial: Draft[]) {
  const [drafts, setDrafts] = useState(initial);
  return {
    drafts,
    add: (draft: Omit<Draft, "key">) =>
      setDrafts([...drafts, { ...draft, key: nextKey++ } as Draft]),
    update: (key: number, patch: Partial<Draft>) =>
      setDrafts(drafts.map((d) => (d.key === key ? { ...d, ...patch } : d))),
    remove: (key: number) => setDrafts(drafts.filter((d) => d.key !== key)),
  };
}

function CreateDatasetForm({ onDone }: { onDone: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"standard" | "hybrid">("hybrid");
  const [model, setModel] = useState("");
  const columns = useDrafts<ColumnDraft>([{ key: 0, name: "text", embed: true }]);
  const metadata = useDrafts<MetadataDraft>([]);
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
      columns: columns.drafts
        .filter((c) => c.name.trim())
        .map((c) => ({ name: c.name.trim(), type: "text", embed: c.embed })),
    };
    const declared = metadata.drafts.filter((m) => m.name.trim());
    if (declared.length > 0)
      body.metadata_columns = declared.map((m) => ({ name: m.name.trim(), type: m.type }));
    if (model.trim()) body.embedding_model = model.trim();
    create.mutate(body);
  }

  return (
    <form className="stack" onSubmit={submit}>
      <InputField label="Name" required value={name} onChange={setName} autoComplete="off" />
      <RadioGroup legend="Kind" name="kind" value={kind} options={KINDS} onChange={setKind} />
      <ListFieldset
        legend="Columns"
        addLabel="Add column"
        onAdd={() => columns.add({ name: "", embed: false })}
      >
        {columns.drafts.map((column, index) => (
          <div className="row" key={column.key}>
            <input
              aria-label={`Column ${index + 1} name`}
              className="grow"
              value={column.name}
              onChange={(e) => columns.update(column.key, { name: e.target.value })}
            />
            <label className="check">
              <input
                type="checkbox"
                checked={column.embed}
                onChange={(e) => columns.update(column.key, { embed: e.target.checked })}
              />
              Embedded
            </label>
            <RemoveButton
              what={`column ${column.name || index + 1}`}
              onRemove={() => columns.remove(column.key)}
            />
          </div>
        ))}
      </ListFieldset>
      <ListFieldset
        legend="Metadata columns (typed, optional)"
        addLabel="Add metadata column"
        onAdd={() => metadata.add({ name: "", type: "string" })}
      >
        {metadata.drafts.map((column, index) => (
          <div className="row" key={column.key}>
            <input
              aria-label={`Metadata column ${index + 1} name`}
              className="grow"
              value={column.name}
              onChange={(e) => metadata.update(column.key, { name: e.target.value })}
            />
            <select
              aria-label={`Metadata column ${index + 1} type`}
              value={column.type}
              style={{ width: "auto" }}
              onChange={(e) =>
                metadata.update(column.key, { type: e.target.value as MetadataType })
              }
            >
              {METADATA_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
            <RemoveButton
              what={`metadata column ${column.name || index + 1}`}
              onRemove={() => metadata.remove(column.key)}
            />
          </div>
        ))}
      </ListFieldset>
      <InputField
        label="Embedding model"
        value={model}
        placeholder="the deployment's default (e.g. local/hash, openai/text-embedding-3-small)"
        onChange={setModel}
        autoComplete="off"
      />
      {create.error && <ErrorNotice error={create.error} />}
      <DialogActions
        label="Create dataset"
        pendingLabel="Creating…"
        pending={create.isPending}
        disabled={!name.trim()}
      />
    </form>
  );
}
