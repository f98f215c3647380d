import type { TestStack } from "./test-stack.ts";

export interface JsonReply {
  status: number;
  text: string;
  body: any;
}

/**
 * A project and key of its own on a stack a test file started for itself (`startTestStack`:
 * its own vars, or its isolates to itself), seeded through the admin API, and `api` for JSON
 * calls with that key; the shared `call` speaks only to the suite's stack.
 */
export async function privateStackTenant(fx: TestStack, name: string) {
  const request = async (
    method: string,
    path: string,
    body: unknown,
    token: string,
  ): Promise<JsonReply> => {
    const res = await fetch(`${fx.stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };
  const admin = fx.stack.adminToken;
  const project = await request("POST", "/admin/projects", { name }, admin);
  if (project.status !== 201) throw new Error(`create project: ${project.status} ${project.text}`);
  const created = await request("POST", `/admin/projects/${project.body.id}/keys`, {}, admin);
  if (created.status !== 201) throw new Error(`create key: ${created.status} ${created.text}`);
  const key: string = created.body.key;
  return {
    key,
    api: (method: string, path: string, body?: unknown) => request(method, path, body, key),
  };
}

export type PrivateStackApi = Awaited<ReturnType<typeof privateStackTenant>>["api"];
