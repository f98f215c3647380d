import { useEffect, useMemo, useRef, useState } from "react";
import { Link, useSearchParams } from "wouter";
import { messageOf } from "../../api/errors.ts";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { useEndpoint } from "../endpoints/endpoint-api.ts";
import {
  cursorIndex,
  REVIEW_KEYS,
  type ReviewEffect,
  ratingAnnouncement,
} from "./keyboard-review.ts";
import { downloadLogs, hasNextPage, useLogsPage, useRateLogs } from "./log-api.ts";
import { LogDetail } from "./log-detail.tsx";
import {
  type LogFilters,
  type LogQuery,
  readLogQuery,
  stillMatches,
  writeLogQuery,
} from "./log-filters.ts";
import { LogFiltersForm } from "./log-filters-form.tsx";
import { type LogView, logSummary, viewOfLog } from "./log-view.ts";
import { Thumb } from "./thumb.tsx";
import { isEditable, useKeyboardReview } from "./use-keyboard-review.ts";

/**
 * Reviewing one endpoint's logs, newest first: filters (in the URL), a page of 50 logs, the
 * log under the cursor in a detail pane, ratings and comments from the keyboard, a selection
 * rated at once, and the filtered logs exported. Pages keep a 10k-log endpoint as quick as a
 * 10-log one; rating changes are announced through an aria-live region.
 */
export function LogReview({ endpointId }: { endpointId: string }) {
  const endpoint = useEndpoint(endpointId);
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const query = useMemo(() => readLogQuery(new URLSearchParams(search)), [search]);
  const setQuery = (next: LogQuery) => setParams(writeLogQuery(next));

  const logs = useLogsPage(endpointId, query);
  const views = useMemo(() => (logs.data ?? []).map(viewOfLog), [logs.data]);
  const ids = useMemo(() => views.map((v) => v.id), [views]);
  const more = hasNextPage(views.length);

  const [announcement, setAnnouncement] = useState("");
  const [rateError, setRateError] = useState<{ ids: string[]; error: unknown } | null>(null);
  const rate = useRateLogs(endpointId);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const listRef = useRef<HTMLOListElement>(null);

  const applyRating = (ratedIds: string[], rating: boolean | null) => {
    setRateError(null);
    rate.mutate(
      { ids: ratedIds, rating },
      {
        onSuccess: () => {
          setAnnouncement(ratingAnnouncement(ratedIds.length, rating));
          if (ratedIds.length > 1) review.setSelected([]);
        },
        onError: (error) => {
          setRateError({ ids: ratedIds, error });
          setAnnouncement(`Rating not saved: ${messageOf(error)}`);
        },
      },
    );
  };

  const onEffect = (effect: ReviewEffect) => {
    switch (effect.type) {
      case "rate":
        applyRating(effect.ids, effect.rating);
        return;
      case "comment":
        commentRef.current?.focus();
        return;
      case "go-to-page": {
        const left = views.filter(
          (v) =>
            !stillMatches(
              { rating: v.rating, commentCount: v.comments?.length ?? null },
              query.filters,
            ),
        ).length;
        if (effect.page > query.page && left > 0) {
          // Pages are positions in the filtered list: with reviewed logs gone from it, the
          // next page would skip logs never shown. The same page, fetched again, holds them.
          void logs.refetch();
          setAnnouncement(
            `${left} reviewed ${left === 1 ? "log" : "logs"} left the list; showing what remains`,
          );
          return;
        }
        setQuery({ ...query, page: effect.page });
        setAnnouncement(`Page ${effect.page}`);
        return;
      }
      case "announce":
        setAnnouncement(effect.message);
        return;
    }
  };
  const review = useKeyboardReview(
    { ids, page: query.page, hasNextPage: more, stale: logs.isFetching },
    onEffect,
  );
  const at = cursorIndex(review.state, views.length);
  const current: LogView | undefined = views[at];

  // Focus follows the cursor (a screen reader reads the log it lands on), but never leaves a
  // field the reviewer is typing in or a dialog, and the page's first log does not take it on
  // arrival: the reviewer starts where the console put them.
  const currentId = current?.id;
  const shownId = useRef<string | undefined>(undefined);
  useEffect(() => {
    const previous = shownId.current;
    shownId.current = currentId;
    if (!currentId || previous === undefined || previous === currentId) return;
    const list = listRef.current;
    const active = document.activeElement;
    if (!list || isEditable(active) || active?.closest("[role=dialog]")) return;
    const row = list.querySelector<HTMLButtonElement>(`[data-log-id="${CSS.escape(currentId)}"]`);
    row?.focus({ preventScroll: true });
    row?.scrollIntoView({ block: "nearest" });
  }, [currentId]);

  const focusList = () => {
    const row = current
      ? listRef.current?.querySelector<HTMLButtonElement>(
          `[data-log-id="${CSS.escape(current.id)}"]`,
        )
      : null;
    row?.focus();
  };

  const changeFilters = (filters: LogFilters) => {
    review.moveTo(0);
    review.setSelected([]);
    setQuery({ filters, page: 1 });
  };

  const selected = review.state.selected;
  const allOnPage = ids.length > 0 && ids.every((id) => selected.includes(id));

  return (
    <section className="log-review stack" aria-labelledby="log-review-title">
      <div className="row between wrap">
        <div>
          <p className="small">
            <Link href="/">← Logs</Link>
          </p>
          <h1 id="log-review-title">Logs{endpoint.data ? ` of ${endpoint.data.name}` : ""}</h1>
          {endpoint.error != null && <ErrorNotice error={endpoint.error} />}
        </div>
        <ExportButtons endpointId={endpointId} filters={query.filters} />
      </div>

      <LogFiltersForm filters={query.filters} onChange={changeFilters} />

      <div className="review-toolbar" role="toolbar" aria-label="Review">
        <label className="inline">
          <input
            type="checkbox"
            checked={allOnPage}
            disabled={ids.length === 0}
            onChange={() => review.dispatch("select-page")}
          />
          Select page
        </label>
        <span className="muted small" data-testid="selection-count">
          {selected.length === 0 ? "None selected" : `${selected.length} selected`}
        </span>
        {[true, false].map((up) => (
          <button
            key={String(up)}
            type="button"
            disabled={selected.length === 0 || rate.isPending}
            onClick={() => applyRating([...selected], up)}
          >
            <Thumb up={up} /> Rate selected {up ? "up" : "down"}
          </button>
        ))}
        <button
          type="button"
          disabled={selected.length === 0}
          onClick={() => review.setSelected([])}
        >
          Unselect
        </button>
        <button
          type="button"
          aria-expanded={review.state.helpOpen}
          aria-controls="review-keys"
          onClick={() => review.dispatch("help")}
        >
          Keyboard shortcuts <kbd>?</kbd>
        </button>
      </div>
      <p className="muted small key-hint">
        <kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>+</kbd>/<kbd>-</kbd> rate (or <kbd>u</kbd>/
        <kbd>d</kbd>) · <kbd>c</kbd> comment · <kbd>x</kbd> select · <kbd>?</kbd> all keys
      </p>
      {review.state.helpOpen && <KeyHelp />}
      {/* A batch's failure, or a single log's once the cursor has moved past it. */}
      {rateError && (rateError.ids.length > 1 || rateError.ids[0] !== current?.id) && (
        <ErrorNotice error={rateError.error} />
      )}

      {/* Rating changes and page turns, for screen readers. */}
      <p className="sr-only" role="status" aria-live="polite" data-testid="announcer">
        {announcement}
      </p>

      {logs.isPending ? (
        <Loading what="Loading logs" />
      ) : logs.error ? (
        <ErrorNotice error={logs.error} onRetry={() => logs.refetch()} />
      ) : views.length === 0 ? (
        query.page > 1 ? (
          <Empty title="No logs on this page">
            <button type="button" onClick={() => setQuery({ ...query, page: 1 })}>
              Back to the newest logs
            </button>
          </Empty>
        ) : Object.keys(query.filters).length > 0 ? (
          <Empty title="No logs match these filters">
            <button type="button" onClick={() => changeFilters({})}>
              Clear the filters
            </button>
          </Empty>
        ) : (
          <Empty title="No logs yet">
            <p>
              Every completion of this endpoint is logged here.{" "}
              <Link
                href={`~${import.meta.env.BASE_URL}endpoints/${encodeURIComponent(endpointId)}`}
              >
                Try it in the playground
              </Link>
              .
            </p>
          </Empty>
        )
      ) : (
        <div className="review-panes">
          <div className="log-list-pane">
            <ol
              ref={listRef}
              className="log-list"
              aria-label={`Logs, page ${query.page}`}
              aria-busy={logs.isFetching}
            >
              {views.map((log, index) => (
                <LogRow
                  key={log.id}
                  log={log}
                  current={index === at}
                  selected={selected.includes(log.id)}
                  onOpen={() => review.moveTo(index)}
                  onToggle={() => {
                    review.moveTo(index);
                    review.dispatch("toggle-select");
                  }}
                />
              ))}
            </ol>
            <nav className="pagination" aria-label="Log pages">
              <button
                type="button"
                disabled={query.page <= 1}
                onClick={() => review.dispatch("previous-page")}
              >
                ← Newer
              </button>
              <span className="muted">Page {query.page}</span>
              <button type="button" disabled={!more} onClick={() => review.dispatch("next-page")}>
                Older →
              </button>
            </nav>
          </div>
          <div className="log-detail-pane">
            {current && (
              <LogDetail
                key={current.id}
                endpointId={endpointId}
                log={current}
                rating={{
                  pending: rate.isPending && (rate.variables?.ids.includes(current.id) ?? false),
                }}
                rateError={
                  rateError && rateError.ids.length === 1 && rateError.ids[0] === current.id
                    ? rateError.error
                    : null
                }
                onRate={(rating) => applyRating([current.id], rating)}
                commentRef={commentRef}
                onCommentDone={focusList}
                onCommented={() => setAnnouncement("Comment saved")}
              />
            )}
          </div>
        </div>
      )}
    </section>
  );
}

function LogRow({
  log,
  current,
  selected,
  onOpen,
  onToggle,
}: {
  log: LogView;
  current: boolean;
  selected: boolean;
  onOpen: () => void;
  onToggle: () => void;
}) {
  const when = new Date(log.at).toLocaleString();
  const rating = log.rating === true ? "Thumbs up" : log.rating === false ? "Thumbs down" : "";
  return (
    <li
      className={`log-item${current ? " current" : ""}${selected ? " selected" : ""}`}
      data-rating={log.rating === null ? "none" : log.rating ? "up" : "down"}
    >
      <input
        type="checkbox"
        checked={selected}
        onChange={onToggle}
        aria-label={`Select the log of ${when}`}
      />
      <button
        type="button"
        className="log-row"
        data-log-id={log.id}
        aria-current={current ? "true" : undefined}
        onClick={onOpen}
      >
        <span className="rating-icon" aria-hidden="true">
          {log.rating === true ? "▲" : log.rating === false ? "▼" : "·"}
        </span>
        <span className="log-row-text">
          <span className="log-row-meta small muted">
            <time dateTime={log.at}>{when}</time>
            {log.userId && <> · {log.userId}</>}
            {log.status !== null && log.status !== 200 && (
              <span className="status-bad"> · {log.status}</span>
            )}
            {rating && <span className="sr-only">, {rating}</span>}
          </span>
          <span className="log-row-summary">{logSummary(log)}</span>
        </span>
      </button>
    </li>
  );
}

function KeyHelp() {
  return (
    <section id="review-keys" className="key-help" aria-label="Keyboard shortcuts">
      <table>
        <caption className="sr-only">Keyboard shortcuts of the log review</caption>
        <tbody>
          {REVIEW_KEYS.map((entry) => (
            <tr key={entry.command}>
              <th scope="row">
                {entry.keys.map((key, index) => (
                  <span key={key}>
                    {index > 0 && " "}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </th>
              <td>{entry.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ExportButtons({ endpointId, filters }: { endpointId: string; filters: LogFilters }) {
  const [busy, setBusy] = useState<"jsonl" | "csv" | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = async (format: "jsonl" | "csv") => {
    setBusy(format);
    setError(null);
    try {
      await downloadLogs(endpointId, filters, format);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="stack tight export">
      <fieldset className="row export-buttons">
        <legend className="sr-only">Export the filtered logs</legend>
        <button type="button" disabled={busy !== null} onClick={() => run("jsonl")}>
          {busy === "jsonl" ? "Exporting…" : "Export JSONL"}
        </button>
        <button type="button" disabled={busy !== null} onClick={() => run("csv")}>
          {busy === "csv" ? "Exporting…" : "Export CSV"}
        </button>
      </fieldset>
      {error != null && <ErrorNotice error={error} />}
    </div>
  );
}
