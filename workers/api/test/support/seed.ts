import { call } from "./client.ts";

/**
 * The POSTs that seed a test's data through the public API (docs/api.md): the reply is returned
 * as is, so a test still asserts the status where the creation itself is under test.
 */

export const postDataset = (token: string, body: unknown) =>
  call("/api/datasets", { method: "POST", token, body });

export const postEndpoint = (token: string, body: unknown) =>
  call("/api/endpoints", { method: "POST", token, body });

export const upsertRows = (token: string, datasetId: string, body: unknown) =>
  call(`/api/datasets/${datasetId}/rows/upsert`, { method: "POST", token, body });
