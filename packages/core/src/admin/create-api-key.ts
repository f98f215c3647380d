import { apiKeys, type Database, projects } from "@quarry/db";
import { eq } from "drizzle-orm";
import { randomSecret, sha256Hex } from "../shared/crypto.ts";
import { NotFoundError } from "../shared/errors.ts";
import { newId } from "../shared/ids.ts";

/** Keys look like `qry_<43 base64url chars>`: 256 random bits; the prefix makes leaks greppable. */
export const API_KEY_PREFIX = "qry_";

export interface CreatedApiKey {
  id: string;
  key: string;
  name: string | null;
  email: string | null;
  project_id: string;
  created_at: string;
}

export async function createApiKey(
  db: Database,
  input: { projectId: string; name?: string; email?: string },
): Promise<CreatedApiKey> {
  const [project] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(eq(projects.id, input.projectId));
  if (!project) throw new NotFoundError("Project", input.projectId);

  const key = API_KEY_PREFIX + randomSecret(32);
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("key"),
      projectId: project.id,
      name: input.name ?? null,
      email: input.email ?? null,
      keyHash: await sha256Hex(key),
      prefix: key.slice(0, API_KEY_PREFIX.length + 6),
    })
    .returning();
  if (!row) throw new Error("insert returned no key");
  return {
    id: row.id,
    key,
    name: row.name,
    email: row.email,
    project_id: row.projectId,
    created_at: row.createdAt.toISOString(),
  };
}
