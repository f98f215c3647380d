import type { Database } from "@quarry/db";
import type { ProviderEnv } from "@quarry/providers";
import type { QuerySampler } from "../search/query-samples.ts";

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
  /** keys and bindings for embedders and models; `local/*` needs none */
  providers?: ProviderEnv;
  /** receives the embedded query of each vector search (E2), to keep some as samples */
  querySamples?: QuerySampler;
}

export interface Page {
  offset: number;
  pageSize: number;
}
