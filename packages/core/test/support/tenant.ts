import type { Database } from "@quarry/db";
import {
  type CreatedApiKey,
  createApiKey,
  createProject,
  type ProjectContext,
} from "../../src/index.ts";

export interface Tenant {
  ctx: ProjectContext;
  key: CreatedApiKey;
}

/** Each test seeds its own project and key, so tests never see each other's data. */
export async function createTenant(db: Database, name = "test"): Promise<Tenant> {
  const project = await createProject(db, { name });
  const key = await createApiKey(db, { projectId: project.id, name: `${name}-key` });
  return { ctx: { db, projectId: project.id }, key };
}
