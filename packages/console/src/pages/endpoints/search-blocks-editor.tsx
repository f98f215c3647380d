import { useId, useState } from "react";
import { messageOf } from "../../api/errors.ts";
import { type SearchBlock, useDatasetChoices } from "./endpoint-api.ts";

/**
 * An endpoint's search blocks (docs/api.md#endpoints): up to 8; each searches a dataset with
 * a query template before the model is called and fills `{{variable}}` with the results. The
 * filter is JSON text here; the API checks it on deploy and its 400 names the offending path.
 */
export const MAX_SEARCH_BLOCKS = 8;

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
    <fieldset className="stack search-blocks">
      <legend>Search blocks</legend>
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
      <div>
        <button
          type="button"
          disabled={blocks.length >= MAX_SEARCH_BLOCKS}
          onClick={() =>
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
          Add search block
        </button>
      </div>
    </fieldset>
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
  return (
    <fieldset className="search-block">
      <legend>Search block {index + 1}</legend>
      <div className="row wrap">
        <div className="field">
          <label htmlFor={`${id}-dataset`}>Dataset</label>
          <select
            id={`${id}-dataset`}
            value={block.dataset_id}
            onChange={(e) => onChange({ ...block, dataset_id: e.target.value })}
            required
          >
            {!known && <option value={block.dataset_id}>{block.dataset_id || "choose…"}</option>}
            {datasets.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({d.id})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-variable`}>Fills variable</label>
          <input
            id={`${id}-variable`}
            value={block.variable}
            className="mono"
            onChange={(e) => onChange({ ...block, variable: e.target.value })}
            required
          />
        </div>
        <div className="field narrow">
          <label htmlFor={`${id}-top-k`}>Top k</label>
          <input
            id={`${id}-top-k`}
            type="number"
            min={1}
            max={100}
            value={block.top_k ?? ""}
            onChange={(e) => {
              const { top_k: _old, ...rest } = block;
              onChange(e.target.value === "" ? rest : { ...rest, top_k: Number(e.target.value) });
            }}
          />
        </div>
        <div className="field narrow">
          <label htmlFor={`${id}-alpha`}>Alpha</label>
          <input
            id={`${id}-alpha`}
            type="number"
            min={0}
            max={1}
            step={0.1}
            placeholder="dataset default"
            value={block.alpha ?? ""}
            onChange={(e) => {
              const { alpha: _old, ...rest } = block;
              onChange(e.target.value === "" ? rest : { ...rest, alpha: Number(e.target.value) });
            }}
          />
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-query`}>Query template</label>
        <input
          id={`${id}-query`}
          value={block.query}
          className="mono"
          onChange={(e) => onChange({ ...block, query: e.target.value })}
          required
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-filter`}>Filter (JSON, optional)</label>
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
      </div>
      <button type="button" onClick={onRemove}>
        Remove search block {index + 1}
      </button>
    </fieldset>
  );
}
