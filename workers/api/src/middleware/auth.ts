import {
  authenticateWithDataset,
  isAdminToken,
  requireDataset,
  requireEndpoint,
  UnauthorizedError,
} from "@quarry/core";
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../http/hono-env.ts";

function bearer(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** Project routes: a valid, unrevoked project API key. Runs before any body validation. */
export const requireApiKey = createMiddleware<HonoEnv>(async (c, next) => {
  const services = c.get("services");
  const { caller, dataset, endpoint } = await authenticateWithDataset(
    services.db(),
    bearer(c.req.header("authorization")),
    pathId(DATASET_PATH.exec(c.req.path)?.[1]),
    pathId(ENDPOINT_PATH.exec(c.req.path)?.[1]),
    {
      cache: services.authCache,
      endpointFromCache: c.req.method === "POST" && COMPLETION_PATH.test(c.req.path),
      datasetFromCache: mayUseCachedDataset(c.req.method, c.req.path),
    },
  );
  c.set("caller", caller);
  const project = services.project(caller.projectId);
  // Prefetched with the key; `requireDataset` still applies the ownership rule to it.
  if (dataset) project.loaded?.set(`dataset:${dataset.id}`, dataset);
  if (endpoint) project.loaded?.set(`endpoint:${endpoint.id}`, endpoint);
  c.set("project", project);
  await next();
});

const DATASET_PATH = /^\/api\/datasets\/([^/]+)/;
const ENDPOINT_PATH = /^(?:\/api)?\/endpoints\/([^/]+)/;
const SEARCH_PATH =
  /^\/api\/datasets\/[^/]+\/(?:search|search-documents|document-filtered-search)$/;
/** E11 and E13 (POST), E12 (PATCH of a document), E8 and E14 (PATCH, DELETE of a row). */
const ROW_WRITE_PATH = /^\/api\/datasets\/[^/]+\/(?:rows\/upsert|documents\/[^/]+\/rows)$/;
const ROW_PATH = /^\/api\/datasets\/[^/]+\/rows\/[^/]+$/;
const DOCUMENT_OR_ROW_PATH = /^\/api\/datasets\/[^/]+\/(?:documents|rows)\/[^/]+$/;
const COMPLETION_PATH = /^(?:\/api)?\/endpoints\/[^/]+(?:\/chat)?\/completions$/;

/**
 * Routes that may run on the isolate's cached dataset record (`CachedAuth.datasetFromCache`):
 * searches, and the row writes — each write locks the dataset's row in its own statement or
 * transaction (packages/db/CONCURRENCY.md), so a dataset deleted in another isolate is a 404
 * with nothing written, whatever the cache holds; what else they take from the record (model,
 * dimensions, columns) never changes while it exists.
 */
function mayUseCachedDataset(method: string, path: string): boolean {
  if (method === "POST") return SEARCH_PATH.test(path) || ROW_WRITE_PATH.test(path);
  if (method === "PATCH") return DOCUMENT_OR_ROW_PATH.test(path);
  return method === "DELETE" && ROW_PATH.test(path);
}

/**
 * The id to prefetch with the key, decoded as Hono decodes path parameters: a malformed
 * escape stays as written (it is an unknown id, not a crash). An id with a NUL cannot
 * exist and cannot be compared in Postgres: none is prefetched, and `storableUrl` refuses
 * the request once the key is checked.
 */
function pathId(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  let id = segment;
  try {
    id = decodeURIComponent(segment);
  } catch {
    // kept as written
  }
  return id.includes("\u0000") ? undefined : id;
}

/**
 * Ownership of the dataset or endpoint named in the path is settled before the body is
 * validated, so another project's id is always a 401 and an unknown one a 404, whatever
 * the body. The record stays cached for the handler.
 */
export const requireOwnedDataset = createMiddleware<HonoEnv>(async (c, next) => {
  const id = c.req.param("id");
  if (id) await requireDataset(c.var.project, id);
  await next();
});

export const requireOwnedEndpoint = createMiddleware<HonoEnv>(async (c, next) => {
  const id = c.req.param("id");
  if (id) await requireEndpoint(c.var.project, id);
  await next();
});

/** Admin routes: the ADMIN_TOKEN, compared in constant time. */
export const requireAdmin = createMiddleware<HonoEnv>(async (c, next) => {
  const { config } = c.get("services");
  if (!(await isAdminToken(config.ADMIN_TOKEN, bearer(c.req.header("authorization"))))) {
    throw new UnauthorizedError("Missing or invalid admin token");
  }
  await next();
});
