import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, ok } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { Empty } from "../../components/empty.tsx";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Loading } from "../../components/loading.tsx";
import { Pagination } from "../../components/pagination.tsx";
import { useToast } from "../../components/toasts.tsx";
import { formatDate } from "../datasets/format.ts";

type Project = components["schemas"]["Project"];
type KeySummary = components["schemas"]["ApiKeySummary"];

const PAGE_SIZE = 50;

/**
 * Admin (signed in with the deployment's admin token): projects and their keys. Keys are
 * listed by id, name and prefix, never the key (only its hash is stored), so a lost key's id
 * can still be found and revoked; a new key is shown once.
 */
export function AdminPage() {
  const [offset, setOffset] = useState(0);
  const [selected, setSelected] = useState<Project | null>(null);
  const projects = useQuery({
    queryKey: ["admin", "projects", offset],
    queryFn: () =>
      ok(api.GET("/admin/projects", { params: { query: { offset, page_size: PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="stack" aria-labelledby="admin-title">
      <div className="row between">
        <h1 id="admin-title">Projects</h1>
        <CreateProject onCreated={setSelected} />
      </div>
      {projects.isPending ? (
        <Loading what="Loading projects" />
      ) : projects.isError ? (
        <ErrorNotice error={projects.error} onRetry={() => projects.refetch()} />
      ) : projects.data.length === 0 && offset === 0 ? (
        <Empty title="No projects yet" />
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Projects</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Id</th>
                  <th scope="col" className="hide-narrow">
                    Created
                  </th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {projects.data.map((project) => (
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
                ))}
              </tbody>
            </table>
          </div>
          <Pagination
            offset={offset}
            pageSize={PAGE_SIZE}
            shown={projects.data.length}
            onChange={setOffset}
            label="Project pages"
          />
        </>
      )}
      {selected && <ProjectKeys key={selected.id} project={selected} />}
    </section>
  );
}

function CreateProject({ onCreated }: { onCreated: (project: Project) => void }) {
  const queries = useQueryClient();
  const id = useId();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => ok(api.POST("/admin/projects", { body: { name: name.trim() } })),
    onSuccess: (project) => {
      setName("");
      queries.invalidateQueries({ queryKey: ["admin", "projects"] });
      onCreated(project);
    },
  });
  return (
    <form
      className="row"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <label htmlFor={id} className="sr-only">
        New project name
      </label>
      <input
        id={id}
        required
        placeholder="New project name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        style={{ width: "14rem" }}
      />
      <button type="submit" className="primary" disabled={create.isPending || !name.trim()}>
        Create project
      </button>
      {create.error && <ErrorNotice error={create.error} />}
    </form>
  );
}

function ProjectKeys({ project }: { project: Project }) {
  const queries = useQueryClient();
  const nameId = useId();
  const [offset, setOffset] = useState(0);
  const [name, setName] = useState("");
  const keys = useQuery({
    queryKey: ["admin", "keys", project.id, offset],
    queryFn: () =>
      ok(
        api.GET("/admin/projects/{id}/keys", {
          params: { path: { id: project.id }, query: { offset, page_size: PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST("/admin/projects/{id}/keys", {
          params: { path: { id: project.id } },
          body: name.trim() ? { name: name.trim() } : {},
        }),
      ),
    onSuccess: () => {
      setName("");
      queries.invalidateQueries({ queryKey: ["admin", "keys", project.id] });
    },
  });
  return (
    <section className="card stack" aria-labelledby="keys-title">
      <h2 id="keys-title">Keys of {project.name}</h2>
      <form
        className="row"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label htmlFor={nameId} className="sr-only">
          Key name (optional)
        </label>
        <input
          id={nameId}
          placeholder="Key name (optional)"
          value={name}
          onChange={(e) => setName(e.target.value)}
          style={{ width: "14rem" }}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {create.error && <ErrorNotice error={create.error} />}
      {create.data && (
        <div className="notice" style={{ border: "1px solid var(--ok)" }} role="status">
          <p>
            Key <code>{create.data.id}</code> created. Copy it now: it is not shown again.
          </p>
          <pre data-testid="new-key">{create.data.key}</pre>
        </div>
      )}
      {keys.isPending ? (
        <Loading what="Loading keys" />
      ) : keys.isError ? (
        <ErrorNotice error={keys.error} onRetry={() => keys.refetch()} />
      ) : keys.data.length === 0 && offset === 0 ? (
        <Empty title="No keys yet" />
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Keys</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Name</th>
                  <th scope="col" className="hide-narrow">
                    Created
                  </th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.map((key) => (
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
                        <RevokeKey projectId={project.id} apiKey={key} />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination
            offset={offset}
            pageSize={PAGE_SIZE}
            shown={keys.data.length}
            onChange={setOffset}
            label="Key pages"
          />
        </>
      )}
    </section>
  );
}

function RevokeKey({ projectId, apiKey }: { projectId: string; apiKey: KeySummary }) {
  const queries = useQueryClient();
  const toast = useToast();
  const revoke = useMutation({
    mutationFn: () =>
      ok(api.DELETE("/admin/keys/{key_id}", { params: { path: { key_id: apiKey.id } } })),
    onSuccess: () => {
      toast(`Key ${apiKey.prefix}… revoked`);
      queries.invalidateQueries({ queryKey: ["admin", "keys", projectId] });
    },
  });
  return (
    <>
      <ConfirmDialog
        trigger={
          <button type="button" aria-label={`Revoke key ${apiKey.prefix}`}>
            Revoke
          </button>
        }
        title={`Revoke key ${apiKey.prefix}…?`}
        description={<p>Requests with this key are refused from now on. This cannot be undone.</p>}
        confirmLabel="Revoke key"
        onConfirm={() => revoke.mutate()}
      />
      {revoke.error && <ErrorNotice error={revoke.error} />}
    </>
  );
}
