import { Link, Route, Switch } from "wouter";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { useEndpointList } from "./log-api.ts";
import { LogReview } from "./log-review.tsx";
import "./logs.css";

/**
 * Log review (issue 16, item 6), mounted at /console/logs with wouter's `nest`: "/" picks an
 * endpoint, "/:endpointId" reviews its logs (filters in the query string).
 */
export function LogsPage() {
  return (
    <Switch>
      <Route path="/" component={EndpointPicker} />
      <Route path="/:endpointId">
        {(params) => <LogReview key={params.endpointId} endpointId={params.endpointId} />}
      </Route>
    </Switch>
  );
}

function EndpointPicker() {
  const endpoints = useEndpointList();
  return (
    <section className="stack" aria-labelledby="logs-title">
      <h1 id="logs-title">Logs</h1>
      <p className="muted">Every completion is logged. Choose an endpoint to review its logs.</p>
      {endpoints.isPending ? (
        <Loading what="Loading endpoints" />
      ) : endpoints.error ? (
        <ErrorNotice error={endpoints.error} onRetry={() => endpoints.refetch()} />
      ) : endpoints.data.length === 0 ? (
        <Empty title="No endpoints, so no logs yet">
          <p>
            <Link href={`~${import.meta.env.BASE_URL}endpoints/new`}>Create an endpoint</Link> and
            try it in its playground.
          </p>
        </Empty>
      ) : (
        <ul className="endpoint-picker">
          {endpoints.data.map((endpoint) => (
            <li key={endpoint.id}>
              <Link href={`/${encodeURIComponent(endpoint.id)}`}>{endpoint.name}</Link>{" "}
              <span className="muted small mono">
                {endpoint.model} · {endpoint.id}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
