import { apiKeys, type Database, projects } from "@quarry/db";
import { asc, eq } from "drizzle-orm";
import { NotFoundError } from "../shared/errors.ts";
import type { AdminListInput } from "./admin-list-input.ts";

/**
 * A key as the admin listing shows it: never the key nor its hash. `prefix` is the key's
 * first characters (`qry_` and 6 more), enough to tell which id a leaked or lost key has, so
 * it can be revoked.
 */
export interface ApiKeySummary {
  id: string;
  name: string | null;
  email: string | null;
  prefix: string;
  project_id: string;
  created_at: string;
  revoked_at: string | null;
}

/** A project's keys, revoked ones included, oldest first; 404 for an unknown project. */
export async function listApiKeys(
  db: Database,
  projectId: string,
  input: AdminListInput,
): Promise<ApiKeySummary[]> {
  const [project] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(eq(projects.id, projectId));
  if (!project) throw new NotFoundError("Project", projectId);
  const found = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      email: apiKeys.email,
      prefix: apiKeys.prefix,
      projectId: apiKeys.projectId,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.projectId, project.id))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .limit(input.page_size)
    .offset(input.offset);
  return found.map((k) => ({
    id: k.id,
    name: k.name,
    email: k.email,
    prefix: k.prefix,
    project_id: k.projectId,
    created_at: k.createdAt.toISOString(),
    revoked_at: k.revokedAt?.toISOString() ?? null,
  }));
}
