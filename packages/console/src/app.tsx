import { type ComponentType, lazy, type ReactNode, Suspense, useEffect, useRef } from "react";
import { Link, Redirect, Route, Switch, useLocation } from "wouter";
import { useAuth } from "./auth/auth-context.tsx";
import { SignIn } from "./auth/sign-in.tsx";
import { Empty } from "./components/empty.tsx";
import { ErrorBoundary } from "./components/error-boundary.tsx";
import { Loading } from "./components/loading.tsx";

/**
 * Each section is its own chunk, loaded when first opened: the first page (sign-in) loads
 * only React, the query cache, the router and the shell (issue 16: ≤ 250 KB gzip, interactive
 * within 1 s; workers/api/scripts/console-measure.mts measures both).
 */
const AdminPage = lazyPage(() => import("./pages/admin/index.tsx"), "AdminPage");
const DatasetPage = lazyPage(() => import("./pages/datasets/dataset-page.tsx"), "DatasetPage");
const DatasetsPage = lazyPage(() => import("./pages/datasets/datasets-page.tsx"), "DatasetsPage");
const DocumentPage = lazyPage(() => import("./pages/datasets/document-page.tsx"), "DocumentPage");
const EndpointsPage = lazyPage(() => import("./pages/endpoints/index.tsx"), "EndpointsPage");
const LogsPage = lazyPage(() => import("./pages/logs/index.tsx"), "LogsPage");
const SearchPage = lazyPage(() => import("./pages/search/search-page.tsx"), "SearchPage");

/** A page component exported by name from a module loaded on first render. */
function lazyPage<Name extends string, Props>(
  load: () => Promise<Record<Name, ComponentType<Props>>>,
  name: Name,
) {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

/** The console's sections: each is a route prefix under /console and a nav entry. */
const PROJECT_SECTIONS = [
  { href: "/datasets", label: "Datasets" },
  { href: "/search", label: "Search" },
  { href: "/endpoints", label: "Endpoints" },
  { href: "/logs", label: "Logs" },
];
const ADMIN_SECTIONS = [{ href: "/admin", label: "Projects" }];

export function App() {
  const { credential } = useAuth();
  if (!credential) return <SignIn />;
  return <Shell />;
}

function Shell() {
  const { credential, signOut } = useAuth();
  const [location] = useLocation();
  const main = useRef<HTMLElement>(null);
  const shown = useRef(location);
  // After a navigation, focus goes to the new page (screen readers announce it; Tab starts
  // there), not back to the top of the document. Not on the first render.
  useEffect(() => {
    if (shown.current === location) return;
    shown.current = location;
    main.current?.focus();
  }, [location]);
  if (!credential) return null;
  const sections = credential.kind === "admin" ? ADMIN_SECTIONS : PROJECT_SECTIONS;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/" className="brand">
          Quarry
        </Link>
        <nav aria-label="Sections">
          <ul>
            {sections.map((section) => (
              <li key={section.href}>
                <Link
                  href={section.href}
                  aria-current={location.startsWith(section.href) ? "page" : undefined}
                >
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="signed-in">
          <span className="muted small">
            {credential.kind === "admin" ? "Admin" : `Key ${credential.token.slice(0, 8)}…`}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        <ErrorBoundary key={location}>
          <Suspense fallback={<Loading what="Loading page" />}>
            {credential.kind === "admin" ? <AdminRoutes /> : <ProjectRoutes />}
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}

/**
 * A signed-in user's routes: "/" goes to `home`, and a path no route takes shows `fallback`
 * (wouter's Switch renders the first route that matches).
 */
function Routes({
  home,
  fallback,
  children,
}: {
  home: string;
  fallback: ReactNode;
  children: ReactNode;
}) {
  return (
    <Switch>
      <Route path="/">
        <Redirect to={home} replace />
      </Route>
      {children}
      <Route>{fallback}</Route>
    </Switch>
  );
}

function ProjectRoutes() {
  return (
    <Routes home="/datasets" fallback={<NotFound />}>
      <Route path="/datasets" component={DatasetsPage} />
      <Route path="/datasets/:id">{(params) => <DatasetPage datasetId={params.id} />}</Route>
      <Route path="/datasets/:id/documents/:documentId">
        {(params) => (
          // Keyed: another document's page starts at its first rows, not at this one's place.
          <DocumentPage
            key={`${params.id}/${params.documentId}`}
            datasetId={params.id}
            documentId={params.documentId}
          />
        )}
      </Route>
      <Route path="/search" component={SearchPage} />
      <Route path="/endpoints" nest component={EndpointsPage} />
      <Route path="/logs" nest component={LogsPage} />
      <Route path="/admin">
        <Empty title="The admin pages need the admin token">
          <p>Sign out and sign in with the deployment's admin token.</p>
        </Empty>
      </Route>
    </Routes>
  );
}

function AdminRoutes() {
  return (
    <Routes
      home="/admin"
      fallback={
        <Empty title="This page needs a project API key">
          <p>The admin token manages projects and keys; sign in with a project key for data.</p>
        </Empty>
      }
    >
      <Route path="/admin" nest component={AdminPage} />
    </Routes>
  );
}

function NotFound() {
  return (
    <Empty title="No such page">
      <Link href="/datasets">Back to datasets</Link>
    </Empty>
  );
}
