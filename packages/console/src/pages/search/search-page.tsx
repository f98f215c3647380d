import { useMutation, useQuery } from "@tanstack/react-query";
import { Slider } from "radix-ui";
import { type FormEvent, useId, useState } from "react";
import { Link, useSearch } from "wouter";
import { api, ok } from "../../api/client.ts";
import { ApiError } from "../../api/errors.ts";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Field, InputField, SelectField } from "../../components/field.tsx";
import { Loading } from "../../components/loading.tsx";
import { RadioGroup } from "../../components/radio-group.tsx";
import { useToast } from "../../components/toasts.tsx";
import {
  curlCommand,
  MODES,
  parseFilter,
  type SearchForm,
  type SearchReply,
  type SearchRequest,
  searchRequest,
} from "./search-request.ts";
import { SearchResults } from "./search-results.tsx";

interface Outcome {
  reply: SearchReply;
  latencyMs: number;
  curl: string;
}

/** The search playground: E2 with an alpha slider and a filter, E3 and E1, timed. */
export function SearchPage() {
  const params = new URLSearchParams(useSearch());
  const toast = useToast();
  const ids = {
    filter: useId(),
    filterError: useId(),
    alpha: useId(),
  };
  const datasets = useQuery({
    queryKey: ["datasets", "list", 0, 1000],
    queryFn: () =>
      ok(api.GET("/api/datasets", { params: { query: { offset: 0, page_size: 1000 } } })),
  });
  const [datasetId, setDatasetId] = useState(params.get("dataset") ?? "");
  const chosen = datasetId || datasets.data?.[0]?.id || "";
  const dataset = datasets.data?.find((d) => d.id === chosen);
  const [form, setForm] = useState<SearchForm>({
    mode: "rows",
    query: "",
    topK: 5,
    alpha: 0.5,
    filter: "",
    topKDocuments: 3,
  });
  const [filterProblem, setFilterProblem] = useState<string | null>(null);
  const [curlShown, setCurlShown] = useState(false);

  const search = useMutation({
    mutationFn: async (request: SearchRequest): Promise<Outcome> => {
      const path = { params: { path: { id: chosen } } };
      const started = performance.now();
      let reply: SearchReply;
      if (request.mode === "rows") {
        const body = request.body;
        const data = await ok(api.POST("/api/datasets/{id}/search", { ...path, body }));
        reply = { mode: "rows", results: data.results };
      } else if (request.mode === "documents") {
        const body = request.body;
        const data = await ok(api.POST("/api/datasets/{id}/search-documents", { ...path, body }));
        reply = { mode: "documents", documents: data.results };
      } else {
        const body = request.body;
        const data = await ok(
          api.POST("/api/datasets/{id}/document-filtered-search", { ...path, body }),
        );
        reply = {
          mode: "document-filtered",
          documents: data.document_results,
          results: data.results,
        };
      }
      return {
        reply,
        latencyMs: performance.now() - started,
        curl: curlCommand(chosen, request),
      };
    },
  });

  const set = <K extends keyof SearchForm>(key: K, value: SearchForm[K]) =>
    setForm((current) => ({ ...current, [key]: value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = form.mode === "rows" ? parseFilter(form.filter) : {};
    setFilterProblem(parsed.problem ?? null);
    if (parsed.problem) return;
    search.mutate(searchRequest(form, parsed.filter));
  }

  // A 400 about the filter belongs beside the filter; any other error above the results.
  const apiError = search.error;
  const filterApiError =
    apiError instanceof ApiError && apiError.status === 400 && /filter/i.test(apiError.message)
      ? apiError
      : null;

  if (datasets.isPending) return <Loading what="Loading datasets" />;
  if (datasets.isError)
    return <ErrorNotice error={datasets.error} onRetry={() => datasets.refetch()} />;
  if (datasets.data.length === 0)
    return (
      <Empty title="No dataset to search">
        <Link href="/datasets">Create a dataset first</Link>
      </Empty>
    );

  const curl = search.data?.curl;
  return (
    <section className="stack" aria-labelledby="search-title">
      <h1 id="search-title">Search playground</h1>
      <form className="card stack" onSubmit={submit}>
        <div className="row">
          <SelectField label="Dataset" fieldClassName="grow" value={chosen} onChange={setDatasetId}>
            {datasets.data.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({d.kind})
              </option>
            ))}
          </SelectField>
          <RadioGroup
            legend="Mode"
            name="mode"
            value={form.mode}
            options={MODES}
            onChange={(mode) => set("mode", mode)}
            className="segmented grow"
          />
        </div>
        <InputField
          label="Query"
          type="search"
          required
          value={form.query}
          onChange={(text) => set("query", text)}
          placeholder="how do telescopes find exoplanets"
        />
        <div className="row">
          <CountField
            label={form.mode === "documents" ? "Top documents" : "Top rows"}
            value={form.topK}
            onChange={(count) => set("topK", count)}
          />
          {form.mode === "document-filtered" && (
            <CountField
              label="Top documents"
              value={form.topKDocuments}
              onChange={(count) => set("topKDocuments", count)}
            />
          )}
          {form.mode === "rows" && (
            <div className="field">
              <span id={ids.alpha} style={{ fontWeight: 600 }}>
                Alpha: {form.alpha.toFixed(2)}
              </span>
              <Slider.Root
                className="slider"
                min={0}
                max={1}
                step={0.05}
                value={[form.alpha]}
                onValueChange={([value]) => set("alpha", value ?? 0.5)}
              >
                <Slider.Track className="slider-track">
                  <Slider.Range className="slider-range" />
                </Slider.Track>
                <Slider.Thumb
                  className="slider-thumb"
                  aria-labelledby={ids.alpha}
                  aria-valuetext={`${form.alpha.toFixed(2)}: ${alphaMeaning(form.alpha)}`}
                />
              </Slider.Root>
              <span className="small muted">
                {alphaMeaning(form.alpha)}
                {dataset?.kind === "standard" && " (a standard dataset has no keyword side)"}
              </span>
            </div>
          )}
        </div>
        {form.mode === "rows" && (
          <Field id={ids.filter} label="Metadata filter (JSON, optional)">
            <textarea
              id={ids.filter}
              className="mono"
              rows={3}
              value={form.filter}
              placeholder='{"year": {"$gte": 2020}, "tags": "physics"}'
              onChange={(e) => set("filter", e.target.value)}
              aria-invalid={filterProblem !== null || filterApiError !== null}
              aria-describedby={ids.filterError}
            />
            <div id={ids.filterError}>
              {filterProblem && (
                <div className="notice error" role="alert">
                  <p>{filterProblem}</p>
                </div>
              )}
              {filterApiError && <ErrorNotice error={filterApiError} />}
            </div>
          </Field>
        )}
        <div className="row">
          <button
            type="submit"
            className="primary"
            disabled={search.isPending || !form.query.trim()}
          >
            {search.isPending ? "Searching…" : "Search"}
          </button>
          {curl && (
            <>
              <button
                type="button"
                onClick={() =>
                  navigator.clipboard.writeText(curl).then(
                    () => toast("curl command copied"),
                    () => setCurlShown(true),
                  )
                }
              >
                Copy as curl
              </button>
              <button type="button" className="link" onClick={() => setCurlShown(!curlShown)}>
                {curlShown ? "Hide curl" : "Show curl"}
              </button>
            </>
          )}
        </div>
        {curl && curlShown && <pre data-testid="curl">{curl}</pre>}
      </form>
      {apiError && !filterApiError && <ErrorNotice error={apiError} />}
      {search.isPending && <Loading what="Searching" />}
      {search.data && !search.isPending && (
        <SearchResults
          datasetId={chosen}
          reply={search.data.reply}
          latencyMs={search.data.latencyMs}
        />
      )}
    </section>
  );
}

/** How many results to return: 1 to 100 (the API's bounds). */
function CountField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: number;
  onChange: (count: number) => void;
}) {
  return (
    <InputField
      label={label}
      type="number"
      min={1}
      max={100}
      value={value}
      onChange={(text) => onChange(Number(text))}
      style={{ width: "7rem" }}
    />
  );
}

function alphaMeaning(alpha: number) {
  if (alpha >= 1) return "pure semantic";
  if (alpha <= 0) return "pure keyword";
  return `${Math.round(alpha * 100)}% semantic, ${Math.round((1 - alpha) * 100)}% keyword`;
}
