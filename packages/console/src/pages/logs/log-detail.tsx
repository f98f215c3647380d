import { type FormEvent, type Ref, useId, useState } from "react";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { useCommentOnLog } from "./log-api.ts";
import { formatCost, formatLatency, type LogView } from "./log-view.ts";
import { Thumb } from "./thumb.tsx";

/**
 * One log under review: what the model was asked (prompt or messages, values, the search
 * results that filled the template), what it answered, its cost and latency, the rating
 * buttons (E15) and the comment box (E10).
 */
export function LogDetail({
  endpointId,
  log,
  onRate,
  rating,
  rateError,
  commentRef,
  onCommentDone,
  onCommented,
}: {
  endpointId: string;
  log: LogView;
  onRate: (rating: boolean | null) => void;
  /** a rating being saved for this log, if any */
  rating: { pending: boolean };
  rateError: unknown;
  commentRef: Ref<HTMLTextAreaElement>;
  /** the reviewer left the comment box (Escape or after saving): focus goes back to the list */
  onCommentDone: () => void;
  onCommented: (count: number) => void;
}) {
  const id = useId();
  const { comments, cost } = log;
  const comment = useCommentOnLog(endpointId);
  const [draft, setDraft] = useState("");

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (draft.trim() === "") return;
    comment.mutate(
      { logId: log.id, comment: draft },
      {
        onSuccess: (saved) => {
          setDraft("");
          onCommented(saved.comments.length);
          onCommentDone();
        },
      },
    );
  };

  return (
    <article className="log-detail stack" aria-labelledby={`${id}-title`}>
      <header className="stack tight">
        <h2 id={`${id}-title`} className="log-detail-title">
          Log <span className="mono">{log.id}</span>
        </h2>
        <dl className="facts">
          <dt>When</dt>
          <dd>
            <time dateTime={log.at}>{new Date(log.at).toLocaleString()}</time>
          </dd>
          <dt>User</dt>
          <dd>{log.userId || "—"}</dd>
          <dt>Status</dt>
          <dd>
            <span className={log.status === 200 ? "" : "status-bad"}>{log.status ?? "—"}</span>
            {log.error && <span className="muted"> · {log.error}</span>}
          </dd>
          <dt>Model</dt>
          <dd className="mono">
            {log.model} · deployment {log.deploymentId}
          </dd>
          <dt>Latency</dt>
          <dd>{formatLatency(log.latencyMs)}</dd>
          <dt>Tokens</dt>
          <dd>
            {log.promptTokens} prompt · {log.completionTokens} completion
          </dd>
          <dt>Cost</dt>
          <dd data-testid="log-cost">{formatCost(cost)}</dd>
        </dl>
      </header>

      <fieldset className="rating-bar">
        <legend className="sr-only">Rate this log</legend>
        {[true, false].map((up) => (
          <button
            key={String(up)}
            type="button"
            className={up ? "rate up" : "rate down"}
            aria-pressed={log.rating === up}
            disabled={rating.pending}
            onClick={() => onRate(log.rating === up ? null : up)}
          >
            <Thumb up={up} /> Thumbs {up ? "up" : "down"}
          </button>
        ))}
        <span className="muted small">
          {log.rating === null ? "Not rated" : log.rating ? "Rated up" : "Rated down"}
        </span>
      </fieldset>
      {rateError != null && <ErrorNotice error={rateError} />}

      <section aria-labelledby={`${id}-prompt`}>
        <h3 id={`${id}-prompt`}>{log.prompt.kind === "messages" ? "Messages" : "Prompt"}</h3>
        {log.prompt.kind === "messages" ? (
          <ol className="messages-view">
            {log.prompt.messages.map((message, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a conversation is an ordered list
              <li key={index}>
                <span className="role">{message.role}</span>
                <pre className="text-block">{message.content}</pre>
              </li>
            ))}
          </ol>
        ) : (
          <pre className="text-block">{log.prompt.text}</pre>
        )}
      </section>

      <section aria-labelledby={`${id}-completion`}>
        <h3 id={`${id}-completion`}>Completion</h3>
        <pre className="text-block completion" data-testid="log-completion">
          {log.completion || <span className="muted">(empty)</span>}
        </pre>
      </section>

      {Object.keys(log.values).length > 0 && (
        <section aria-labelledby={`${id}-values`}>
          <h3 id={`${id}-values`}>Values</h3>
          <dl className="facts">
            {Object.entries(log.values).map(([name, value]) => (
              <div key={name} className="contents">
                <dt className="mono">{name}</dt>
                <dd>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}

      {log.searchResults.length > 0 && (
        <section aria-labelledby={`${id}-search`}>
          <h3 id={`${id}-search`}>Search results ({log.searchResults.length})</h3>
          <ol className="search-results">
            {log.searchResults.map((result, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: results are ranked
              <li key={index}>
                <p>{result.embedding}</p>
                <p className="muted small">
                  {result.variable && <>fills {`{{${result.variable}}}`} · </>}
                  {typeof result.confidence === "number" &&
                    `confidence ${result.confidence.toFixed(3)}`}
                </p>
              </li>
            ))}
          </ol>
        </section>
      )}

      <section aria-labelledby={`${id}-comments`} className="stack tight">
        <h3 id={`${id}-comments`}>Comments</h3>
        {comments.length === 0 ? (
          <p className="muted small">No comments yet.</p>
        ) : (
          <ul className="comments">
            {comments.map((c, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: comments are in order, oldest first
              <li key={index}>
                <p>{c.comment}</p>
                <p className="muted small">
                  {c.name}
                  {c.email && ` <${c.email}>`}
                </p>
              </li>
            ))}
          </ul>
        )}
        <form className="stack tight" onSubmit={submit}>
          <label htmlFor={`${id}-comment`}>Add a comment</label>
          <textarea
            id={`${id}-comment`}
            ref={commentRef}
            value={draft}
            rows={3}
            maxLength={10_000}
            aria-describedby={`${id}-comment-help`}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                submit();
              } else if (e.key === "Escape") {
                e.preventDefault();
                onCommentDone();
              }
            }}
          />
          <p id={`${id}-comment-help`} className="muted small">
            Ctrl+Enter saves, Esc goes back to the list.
          </p>
          {comment.error && <ErrorNotice error={comment.error} />}
          <div>
            <button type="submit" disabled={comment.isPending || draft.trim() === ""}>
              {comment.isPending ? "Saving…" : "Save comment"}
            </button>
          </div>
        </form>
      </section>
    </article>
  );
}
