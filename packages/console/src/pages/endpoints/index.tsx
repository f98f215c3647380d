import { Link, Route, Switch, useLocation } from "wouter";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { PageSection } from "../../components/page-section.tsx";
import { PagedTable, type TableSpec } from "../../components/paged-table.tsx";
import { useToast } from "../../components/toasts.tsx";
import { useEndpoint, useEndpoints } from "./endpoint-api.ts";
import { EndpointForm } from "./endpoint-form.tsx";
import { logsHref, Playground } from "./playground.tsx";
import "./endpoints.css";

/**
 * Endpoints (issue 16, item 5), mounted at /console/endpoints with wouter's `nest`: the list,
 * "/new", and "/:id" (configuration beside the playground).
 */
export function EndpointsPage() {
  return (
    <Switch>
      <Route path="/" component={EndpointList} />
      <Route path="/new" component={NewEndpoint} />
      <Route path="/:id">{(params) => <EndpointDetail endpointId={params.id} />}</Route>
    </Switch>
  );
}

function EndpointList() {
  const endpoints = useEndpoints();
  return (
    <PageSection
      title="Endpoints"
      actions={
        <Link href="/new" className="button primary">
          New endpoint
        </Link>
      }
    >
      <PagedTable
        list={endpoints}
        table={ENDPOINTS}
        empty={
          <Empty title="No endpoints yet">
            <p>
              An endpoint is a model with a prompt template, optionally grounded by search.{" "}
              <Link href="/new">Create one</Link>.
            </p>
          </Empty>
        }
      >
        {(endpoint) => (
          <tr key={endpoint.id}>
            <td>
              <Link href={`/${encodeURIComponent(endpoint.id)}`}>{endpoint.name}</Link>
              <div className="muted small mono">{endpoint.id}</div>
            </td>
            <td className="mono">{endpoint.model}</td>
            <td>{endpoint.type}</td>
            <td className="mono">
              {endpoint.variables.length ? endpoint.variables.join(", ") : "—"}
            </td>
            <td>{endpoint.deployment_id}</td>
            <td>
              <Link href={logsHref(endpoint.id)} aria-label={`Review logs of ${endpoint.name}`}>
                Logs
              </Link>
            </td>
          </tr>
        )}
      </PagedTable>
    </PageSection>
  );
}

const ENDPOINTS: TableSpec = {
  caption: "Endpoints of this project",
  columns: [
    { label: "Name" },
    { label: "Model" },
    { label: "Style" },
    { label: "Variables" },
    { label: "Deployment" },
    { label: "Logs", hidden: true },
  ],
  loading: "Loading endpoints",
  pagesLabel: "Endpoint pages",
};

function NewEndpoint() {
  const [, navigate] = useLocation();
  const toast = useToast();
  return (
    <section className="stack narrow-page">
      <p>
        <Link href="/">← Endpoints</Link>
      </p>
      <EndpointForm
        onSaved={(saved) => {
          toast(`Endpoint ${saved.name} created (deployment ${saved.deployment_id})`);
          navigate(`/${encodeURIComponent(saved.id)}`);
        }}
      />
    </section>
  );
}

function EndpointDetail({ endpointId }: { endpointId: string }) {
  const endpoint = useEndpoint(endpointId);
  const toast = useToast();
  if (endpoint.isPending) return <Loading what="Loading the endpoint" />;
  if (endpoint.error) {
    return (
      <section className="stack">
        <p>
          <Link href="/">← Endpoints</Link>
        </p>
        <ErrorNotice error={endpoint.error} onRetry={() => endpoint.refetch()} />
      </section>
    );
  }
  const data = endpoint.data;
  return (
    <section className="stack" aria-labelledby="endpoint-title">
      <p>
        <Link href="/">← Endpoints</Link>
      </p>
      <div className="row between wrap">
        <div>
          <h1 id="endpoint-title">{data.name}</h1>
          <p className="muted small">
            <span className="mono">{data.id}</span> · {data.model} · deployment{" "}
            <span data-testid="deployment-id">{data.deployment_id}</span>
          </p>
        </div>
        <Link href={logsHref(data.id)} className="button">
          Review logs
        </Link>
      </div>
      <div className="endpoint-columns">
        {/* Keyed by deployment: a save resets the form to what was deployed. */}
        <EndpointForm
          key={data.deployment_id}
          endpoint={data}
          onSaved={(saved) => toast(`Deployed: deployment ${saved.deployment_id}`)}
        />
        <Playground key={`play-${data.deployment_id}`} endpoint={data} />
      </div>
    </section>
  );
}
