import { type Database, projects } from "@quarry/db";
import { asc } from "drizzle-orm";
import type { AdminListInput } from "./admin-list-input.ts";
import type { ProjectView } from "./create-project.ts";

/** Every project, oldest first: how an operator finds a project whose id was lost. */
export async function listProjects(db: Database, input: AdminListInput): Promise<ProjectView[]> {
  const found = await db
    .select()
    .from(projects)
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(input.page_size)
    .offset(input.offset);
  return found.map((p) => ({ id: p.id, name: p.name, created_at: p.createdAt.toISOString() }));
}
