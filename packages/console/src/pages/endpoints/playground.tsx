import { type FormEvent, useId, useState } from "react";
import { Link } from "wouter";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { InputField } from "../../components/field.tsx";
import { formatCost, formatLatency } from "../logs/log-view.ts";
import type { Endpoint } from "./endpoint-api.ts";
import { useCompletion } from "./use-completion.ts";

/** The log review of an endpoint, from inside the nested endpoints router (`~` leaves it). */
export function logsHref(endpointId: string): string {
  return `~${import.meta.env.BASE_URL}logs/${encodeURIComponent(endpointId)}`;
}

/**
 * Tries an endpoint (E4): one field per variable the caller fills, an optional message
 * appended to the template, and the reply streamed token by token, then the search results
 * that filled the template, the usage and the cost, and a link to the log it wrote.
 */
export function Playground({ endpoint }: { endpoint: Endpoint }) {
  const id = useId();
  const { state, run, stop } = useCompletion(endpoint.id, endpoint.type);
  const [values, setValues] = useState<Record<string, string>>({});
  const [input, setInput] = useState("");
  const [user, setUser] = useState("");
  const [stream, setStream] = useState(true);
  const running = state.status === "running";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const filled = Object.fromEntries(endpoint.variables.map((name) => [name, values[name] ?? ""]));
    void run({ values: filled, input, user, stream });
  };
  const cost =
    state.promptCost !== undefined && state.completionCost !== undefined
      ? state.promptCost + state.completionCost
      : null;

  return (
    <section className="stack playground" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Playground</h2>
      <form className="stack" onSubmit={submit}>
        {endpoint.variables.length === 0 && (
          <p className="muted small">This endpoint's template has no variables to fill.</p>
        )}
        {endpoint.variables.map((name) => (
          <div className="field" key={name}>
            <label htmlFor={`${id}-var-${name}`}>
              <code>{`{{${name}}}`}</code>
            </label>
            <textarea
              id={`${id}-var-${name}`}
              rows={2}
              value={values[name] ?? ""}
              onChange={(e) => setValues({ ...values, [name]: e.target.value })}
            />
          </div>
        ))}
        <div className="field">
          <label htmlFor={`${id}-input`}>
            {endpoint.type === "chat" ? "User message (appended)" : "Text appended to the prompt"}
          </label>
          <textarea
            id={`${id}-input`}
            rows={2}
            value={input}
            onChange={(e) => setInput(e.target.value)}
          />
        </div>
        <div className="row wrap">
          <InputField label="User (logged as the log's user)" value={user} onChange={setUser} />
          <label className="inline">
            <input type="checkbox" checked={stream} onChange={(e) => setStream(e.target.checked)} />
            Stream tokens
          </label>
        </div>
        <div className="row">
          <button type="submit" className="primary" disabled={running}>
            {running ? "Running…" : "Run"}
          </button>
          {running && (
            <button type="button" onClick={stop}>
              Stop
            </button>
          )}
        </div>
      </form>

      {state.status !== "idle" && (
        <div className="stack completion-result">
          <h3>Completion</h3>
          <pre className="completion-output" data-testid="completion-output" aria-busy={running}>
            {state.text}
            {running && <span className="caret" aria-hidden="true" />}
          </pre>
          <p role="status" className="muted small" aria-live="polite" data-testid="run-status">
            {running
              ? `Streaming… ${state.tokens} tokens so far`
              : state.status === "done"
                ? `Done (${state.finishReason ?? "stop"})`
                : state.status === "stopped"
                  ? "Stopped"
                  : "Failed"}
          </p>
          {state.status === "failed" && <ErrorNotice error={state.error} />}
          <dl className="facts" aria-label="Completion facts">
            <dt>Prompt tokens</dt>
            <dd data-testid="usage-prompt">{state.usage?.prompt_tokens ?? "—"}</dd>
            <dt>Completion tokens</dt>
            <dd data-testid="usage-completion">{state.usage?.completion_tokens ?? "—"}</dd>
            <dt>Cost</dt>
            <dd data-testid="cost">{cost === null ? "—" : formatCost(cost)}</dd>
            <dt>First token</dt>
            <dd>{formatLatency(state.firstTokenMs ?? null)}</dd>
            <dt>Total</dt>
            <dd>{formatLatency(state.totalMs ?? null)}</dd>
            <dt>Log</dt>
            <dd>
              {state.usageId ? (
                <Link href={logsHref(endpoint.id)}>
                  <code>{state.usageId}</code>
                </Link>
              ) : (
                "—"
              )}
            </dd>
          </dl>
          {state.searchResults && (
            <div className="stack">
              <h3>Search results ({state.searchResults.length})</h3>
              {state.searchResults.length === 0 ? (
                <p className="muted">The search found nothing to fill the template.</p>
              ) : (
                <ol className="search-results">
                  {state.searchResults.map((result, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: results are an ordered list
                    <li key={index}>
                      <p>{result.embedding}</p>
                      <p className="muted small">
                        {result.variable && (
                          <>
                            fills <code>{`{{${result.variable}}}`}</code> ·{" "}
                          </>
                        )}
                        confidence {result.confidence.toFixed(3)}
                      </p>
                    </li>
                  ))}
                </ol>
              )}
            </div>
          )}
        </div>
      )}
    </section>
  );
}
