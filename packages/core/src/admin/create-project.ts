import { type Database, projects } from "@quarry/db";
import { newId } from "../shared/ids.ts";

export interface ProjectView {
  id: string;
  name: string;
  created_at: string;
}

export async function createProject(db: Database, input: { name: string }): Promise<ProjectView> {
  const [project] = await db
    .insert(projects)
    .values({ id: newId("proj"), name: input.name })
    .returning();
  if (!project) throw new Error("insert returned no project");
  return { id: project.id, name: project.name, created_at: project.createdAt.toISOString() };
}
