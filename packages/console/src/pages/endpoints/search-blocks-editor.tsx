import { useId, useState } from "react";
import { messageOf } from "../../api/errors.ts";
import { Field, InputField, SelectField } from "../../components/field.tsx";
import { ListFieldset } from "../../components/list-fieldset.tsx";
import { type SearchBlock, useDatasetChoices } from "./endpoint-api.ts";

/**
 * An endpoint's search blocks (docs/api.md#endpoints): up to 8; each searches a dataset with
 * a query template before the model is called and fills `{{variable}}` with the results. The
 * filter is JSON text here; the API checks it on deploy and its 400 names the offending path.
 */
export const MAX_SEARCH_BLOCKS = 8;

/** A block's optional numbers: left blank, they are left out and the API's defaults apply. */
const NUMBER_SETTINGS = [
  { key: "top_k", label: "Top k", min: 1, max: 100 },
  { key: "alpha", label: "Alpha", min: 0, max: 1, step: 0.1, placeholder: "dataset default" },
] as const;

export function SearchBlocksEditor({
  blocks,
  onChange,
}: {
  blocks: SearchBlock[];
  onChange: (blocks: SearchBlock[]) => void;
}) {
  const datasets = useDatasetChoices();
  const update = (index: number, block: SearchBlock) =>
    onChange(blocks.map((b, i) => (i === index ? block : b)));
  return (
    <ListFieldset
      legend="Search blocks"
      className="stack search-blocks"
      addLabel="Add search block"
      addDisabled={blocks.length >= MAX_SEARCH_BLOCKS}
      onAdd={() =>
        onChange([
          ...blocks,
          {
            dataset_id: datasets.data?.[0]?.id ?? "",
            variable: blocks.length === 0 ? "context" : `context${blocks.length + 1}`,
            query: "{{question}}",
            top_k: 3,
          },
        ])
      }
    >
      {datasets.error && (
        <p className="notice error small" role="alert">
          Datasets could not be listed: {messageOf(datasets.error)}
        </p>
      )}
      {blocks.length === 0 && (
        <p className="muted small">
          None: the model answers from the template alone. A search block fills a variable with
          search results from a dataset.
        </p>
      )}
      {blocks.map((block, index) => (
        <SearchBlockRow
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks have no identity but their place
          key={index}
          index={index}
          block={block}
          datasets={datasets.data ?? []}
          onChange={(next) => update(index, next)}
          onRemove={() => onChange(blocks.filter((_, i) => i !== index))}
        />
      ))}
    </ListFieldset>
  );
}

function SearchBlockRow({
  index,
  block,
  datasets,
  onChange,
  onRemove,
}: {
  index: number;
  block: SearchBlock;
  datasets: { id: string; name: string }[];
  onChange: (block: SearchBlock) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const [filterText, setFilterText] = useState(
    block.filter ? JSON.stringify(block.filter, null, 2) : "",
  );
  const [filterError, setFilterError] = useState<string | null>(null);
  const readFilter = (text: string) => {
    setFilterText(text);
    if (text.trim() === "") {
      setFilterError(null);
      const { filter: _dropped, ...rest } = block;
      onChange(rest);
      return;
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        setFilterError('The filter is a JSON object, e.g. {"year": {"$gte": 2020}}.');
        return;
      }
      setFilterError(null);
      onChange({ ...block, filter: parsed as Record<string, unknown> });
    } catch {
      setFilterError("Not valid JSON yet.");
    }
  };
  const known = datasets.some((d) => d.id === block.dataset_id);
  // The variable's name and the query template: required text, in code type.
  const templateField = (key: "variable" | "query", label: string) => (
    <InputField
      label={label}
      value={block[key]}
      className="mono"
      onChange={(text) => onChange({ ...block, [key]: text })}
      required
    />
  );
  return (
    <fieldset className="search-block">
      <legend>Search block {index + 1}</legend>
      <div className="row wrap">
        <SelectField
          label="Dataset"
          value={block.dataset_id}
          onChange={(datasetId) => onChange({ ...block, dataset_id: datasetId })}
          required
        >
          {!known && <option value={block.dataset_id}>{block.dataset_id || "choose…"}</option>}
          {datasets.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name} ({d.id})
            </option>
          ))}
        </SelectField>
        {templateField("variable", "Fills variable")}
        {NUMBER_SETTINGS.map(({ key, label, ...limits }) => (
          <Field key={key} id={`${id}-${key}`} label={label} className="narrow">
            <input
              id={`${id}-${key}`}
              type="number"
              {...limits}
              value={block[key] ?? ""}
              onChange={(e) => {
                const { [key]: _old, ...rest } = block;
                onChange(e.target.value === "" ? rest : { ...rest, [key]: Number(e.target.value) });
              }}
            />
          </Field>
        ))}
      </div>
      {templateField("query", "Query template")}
      <Field id={`${id}-filter`} label="Filter (JSON, optional)">
        <textarea
          id={`${id}-filter`}
          value={filterText}
          rows={2}
          className="mono"
          aria-invalid={filterError ? true : undefined}
          aria-describedby={filterError ? `${id}-filter-error` : undefined}
          onChange={(e) => readFilter(e.target.value)}
        />
        {filterError && (
          <p id={`${id}-filter-error`} className="field-error small">
            {filterError}
          </p>
        )}
      </Field>
      <button type="button" onClick={onRemove}>
        Remove search block {index + 1}
      </button>
    </fieldset>
  );
}
