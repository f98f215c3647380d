import { type FormEvent, useEffect, useId, useState } from "react";
import {
  dayToInstant,
  hasAnyFilter,
  instantToDay,
  type LogFilters,
  type RatingFilter,
} from "./log-filters.ts";

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
      <div className="field">
        <label htmlFor={`${id}-rating`}>Rating</label>
        <select
          id={`${id}-rating`}
          value={filters.rating ?? ""}
          onChange={(e) => set({ rating: (e.target.value || undefined) as RatingFilter })}
        >
          <option value="">Any</option>
          <option value="positive">Thumbs up</option>
          <option value="negative">Thumbs down</option>
          <option value="unrated">Not rated</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-comments`}>Comments</label>
        <select
          id={`${id}-comments`}
          value={filters.hasComments === undefined ? "" : String(filters.hasComments)}
          onChange={(e) =>
            set({ hasComments: e.target.value === "" ? undefined : e.target.value === "true" })
          }
        >
          <option value="">Any</option>
          <option value="true">With comments</option>
          <option value="false">Without comments</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-since`}>From</label>
        <input
          id={`${id}-since`}
          type="date"
          value={instantToDay(filters.since)}
          onChange={(e) => set({ since: dayToInstant(e.target.value, "since") })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-until`}>To</label>
        <input
          id={`${id}-until`}
          type="date"
          value={instantToDay(filters.until)}
          onChange={(e) => set({ until: dayToInstant(e.target.value, "until") })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-user`}>User</label>
        <input
          id={`${id}-user`}
          value={user}
          onChange={(e) => setUser(e.target.value)}
          placeholder="any"
        />
      </div>
      <div className="field narrow">
        <label htmlFor={`${id}-status`}>Status</label>
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
      </div>
      <div className="filter-actions">
        <button type="submit">Apply</button>
        <button type="button" disabled={!hasAnyFilter(filters)} onClick={() => onChange({})}>
          Clear
        </button>
      </div>
    </form>
  );
}
