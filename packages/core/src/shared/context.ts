import type { Database } from "@quarry/db";

/** What every project-scoped operation runs with: the database and the caller's tenant. */
export interface ProjectContext {
  db: Database;
  projectId: string;
  /**
   * Records already loaded and authorised in this request (by `requireDataset` and
   * `requireEndpoint`), so the edge can check ownership before validating a body without
   * the handler paying for a second query. Lives for one request only.
   */
  loaded?: Map<string, unknown>;
}

export interface Page {
  offset: number;
  pageSize: number;
}
