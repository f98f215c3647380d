import type { Database } from "@quarry/db";

/** What every project-scoped operation runs with: the database and the caller's tenant. */
export interface ProjectContext {
  db: Database;
  projectId: string;
}

export interface Page {
  offset: number;
  pageSize: number;
}
