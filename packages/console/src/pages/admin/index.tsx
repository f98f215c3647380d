import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, ok } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { ConfirmedAction } from "../../components/confirmed-action.tsx";
import { ACTIONS_COLUMN, CREATED_COLUMN } from "../../components/data-table.tsx";
import { Empty } from "../../components/empty.tsx";
import { PageSection } from "../../components/page-section.tsx";
import { PagedTable, type TableSpec } from "../../components/paged-table.tsx";
import { usePagedQuery } from "../../components/use-paged-query.ts";
import { formatDate } from "../datasets/format.ts";
import { NameForm } from "./name-form.tsx";

type Project = components["schemas"]["Project"];

const PAGE_SIZE = 50;

/**
 * Admin (signed in with the deployment's admin token): projects and their keys. Keys are
 * listed by id, name and prefix, never the key (only its hash is stored), so a lost key's id
 * can still be found and revoked; a new key is shown once.
 */
export function AdminPage() {
  const [selected, setSelected] = useState<Project | null>(null);
  const projects = usePagedQuery(PAGE_SIZE, (offset) => ({
    queryKey: ["admin", "projects", offset],
    queryFn: () =>
      ok(api.GET("/admin/projects", { params: { query: { offset, page_size: PAGE_SIZE } } })),
  }));
  return (
    <PageSection title="Projects" actions={<CreateProject onCreated={setSelected} />}>
      <PagedTable list={projects} table={PROJECTS} empty={<Empty title="No projects yet" />}>
        {(project) => (
          <tr key={project.id}>
            <td>{project.name}</td>
            <td className="mono small">{project.id}</td>
            <td className="hide-narrow small">{formatDate(project.created_at)}</td>
            <td>
              <button
                type="button"
                aria-pressed={selected?.id === project.id}
                onClick={() => setSelected(project)}
              >
                Keys
              </button>
            </td>
          </tr>
        )}
      </PagedTable>
      {selected && <ProjectKeys key={selected.id} project={selected} />}
    </PageSection>
  );
}

const PROJECTS: TableSpec = {
  caption: "Projects",
  columns: [{ label: "Name" }, { label: "Id" }, CREATED_COLUMN, ACTIONS_COLUMN],
  loading: "Loading projects",
  pagesLabel: "Project pages",
};

const KEYS: TableSpec = {
  caption: "Keys",
  columns: [{ label: "Key" }, { label: "Name" }, CREATED_COLUMN, { label: "Status" }],
  loading: "Loading keys",
  pagesLabel: "Key pages",
};

function CreateProject({ onCreated }: { onCreated: (project: Project) => void }) {
  const queries = useQueryClient();
  const create = useMutation({
    mutationFn: (name: string) => ok(api.POST("/admin/projects", { body: { name } })),
    onSuccess: (project) => {
      queries.invalidateQueries({ queryKey: ["admin", "projects"] });
      onCreated(project);
    },
  });
  return (
    <NameForm
      label="New project name"
      submitLabel="Create project"
      required
      pending={create.isPending}
      error={create.error}
      onSubmit={(name, reset) => create.mutate(name, { onSuccess: reset })}
    />
  );
}

function ProjectKeys({ project }: { project: Project }) {
  const queries = useQueryClient();
  const keys = usePagedQuery(PAGE_SIZE, (offset) => ({
    queryKey: ["admin", "keys", project.id, offset],
    queryFn: () =>
      ok(
        api.GET("/admin/projects/{id}/keys", {
          params: { path: { id: project.id }, query: { offset, page_size: PAGE_SIZE } },
        }),
      ),
  }));
  const create = useMutation({
    mutationFn: (name: string) =>
      ok(
        api.POST("/admin/projects/{id}/keys", {
          params: { path: { id: project.id } },
          body: name ? { name } : {},
        }),
      ),
    onSuccess: () => {
      queries.invalidateQueries({ queryKey: ["admin", "keys", project.id] });
    },
  });
  return (
    <section className="card stack" aria-labelledby="keys-title">
      <h2 id="keys-title">Keys of {project.name}</h2>
      <NameForm
        label="Key name (optional)"
        submitLabel="Create key"
        pending={create.isPending}
        error={create.error}
        onSubmit={(name, reset) => create.mutate(name, { onSuccess: reset })}
      />
      {create.data && (
        <div className="notice" style={{ border: "1px solid var(--ok)" }} role="status">
          <p>
            Key <code>{create.data.id}</code> created. Copy it now: it is not shown again.
          </p>
          <pre data-testid="new-key">{create.data.key}</pre>
        </div>
      )}
      <PagedTable list={keys} table={KEYS} empty={<Empty title="No keys yet" />}>
        {(key) => (
          <tr key={key.id}>
            <td>
              <span className="mono">{key.prefix}…</span>
              <div className="muted small mono">{key.id}</div>
            </td>
            <td>{key.name ?? "—"}</td>
            <td className="hide-narrow small">{formatDate(key.created_at)}</td>
            <td>
              {key.revoked_at ? (
                <span className="badge failed">revoked {formatDate(key.revoked_at)}</span>
              ) : (
                <ConfirmedAction
                  label="Revoke"
                  ariaLabel={`Revoke key ${key.prefix}`}
                  title={`Revoke key ${key.prefix}…?`}
                  description="Requests with this key are refused from now on. This cannot be undone."
                  confirmLabel="Revoke key"
                  action={() =>
                    ok(api.DELETE("/admin/keys/{key_id}", { params: { path: { key_id: key.id } } }))
                  }
                  doneMessage={`Key ${key.prefix}… revoked`}
                  invalidates={["admin", "keys", project.id]}
                />
              )}
            </td>
          </tr>
        )}
      </PagedTable>
    </section>
  );
}
