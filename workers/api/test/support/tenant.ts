import { admin } from "./client.ts";

export interface Tenant {
  projectId: string;
  key: string;
  keyId: string;
}

/** Each test file seeds its own project and key through the admin API. */
export async function createTenant(name = "e2e"): Promise<Tenant> {
  const project = await admin("/admin/projects", { method: "POST", body: { name } });
  if (project.status !== 201) throw new Error(`create project: ${project.status} ${project.text}`);
  const key = await admin(`/admin/projects/${project.body.id}/keys`, {
    method: "POST",
    body: { name: `${name}-key`, email: `${name}@example.com` },
  });
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${key.text}`);
  return { projectId: project.body.id, key: key.body.key, keyId: key.body.id };
}
