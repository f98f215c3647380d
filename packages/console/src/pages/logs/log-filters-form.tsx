import { type FormEvent, useEffect, useId, useState } from "react";
import { Field, InputField, SelectField } from "../../components/field.tsx";
import {
  dayToInstant,
  hasAnyFilter,
  instantToDay,
  type LogFilters,
  type RatingFilter,
} from "./log-filters.ts";

/** The date range: a day picked in each bound, kept in the URL as an instant. */
const DAY_BOUNDS = [
  { bound: "since", label: "From" },
  { bound: "until", label: "To" },
] as const;

/**
 * The review's filters (issue 16, item 6): rating, has comments, a date range, user and
 * status. Choices apply at once; the typed fields (user, status) when Enter or "Apply" is
 * pressed, so a half-typed user never fires a request.
 */
export function LogFiltersForm({
  filters,
  onChange,
}: {
  filters: LogFilters;
  onChange: (filters: LogFilters) => void;
}) {
  const id = useId();
  const [user, setUser] = useState(filters.user ?? "");
  const [status, setStatus] = useState(filters.status?.toString() ?? "");
  // The URL is the source of truth: follow it when it changes (back button, "Clear").
  useEffect(() => setUser(filters.user ?? ""), [filters.user]);
  useEffect(() => setStatus(filters.status?.toString() ?? ""), [filters.status]);

  const set = (patch: Partial<LogFilters>) => {
    const next: LogFilters = { ...filters, ...patch };
    for (const key of Object.keys(next) as (keyof LogFilters)[]) {
      if (next[key] === undefined) delete next[key];
    }
    onChange(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const code = Number(status);
    set({
      user: user.trim() || undefined,
      status: status.trim() === "" || !Number.isInteger(code) ? undefined : code,
    });
  };

  return (
    <form className="log-filters" onSubmit={submit} aria-label="Filter logs">
      <SelectField
        label="Rating"
        value={filters.rating ?? ""}
        onChange={(rating) => set({ rating: (rating || undefined) as RatingFilter })}
      >
        <option value="">Any</option>
        <option value="positive">Thumbs up</option>
        <option value="negative">Thumbs down</option>
        <option value="unrated">Not rated</option>
      </SelectField>
      <SelectField
        label="Comments"
        value={filters.hasComments === undefined ? "" : String(filters.hasComments)}
        onChange={(choice) => set({ hasComments: choice === "" ? undefined : choice === "true" })}
      >
        <option value="">Any</option>
        <option value="true">With comments</option>
        <option value="false">Without comments</option>
      </SelectField>
      {DAY_BOUNDS.map(({ bound, label }) => (
        <Field key={bound} id={`${id}-${bound}`} label={label}>
          <input
            id={`${id}-${bound}`}
            type="date"
            value={instantToDay(filters[bound])}
            onChange={(e) => set({ [bound]: dayToInstant(e.target.value, bound) })}
          />
        </Field>
      ))}
      <InputField label="User" value={user} onChange={setUser} placeholder="any" />
      <Field id={`${id}-status`} label="Status" className="narrow">
        <input
          id={`${id}-status`}
          value={status}
          inputMode="numeric"
          list={`${id}-statuses`}
          onChange={(e) => setStatus(e.target.value)}
          placeholder="any"
          size={5}
        />
        <datalist id={`${id}-statuses`}>
          <option value="200">OK</option>
          <option value="499">client closed the stream</option>
          <option value="502">provider failed</option>
        </datalist>
      </Field>
      <div className="filter-actions">
        <button type="submit">Apply</button>
        <button type="button" disabled={!hasAnyFilter(filters)} onClick={() => onChange({})}>
          Clear
        </button>
      </div>
    </form>
  );
}
