import { apiKeys, type Database, datasets, endpoints } from "@quarry/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import type { EndpointRecord } from "../endpoints/endpoint-view.ts";
import { constantTimeEqual, sha256Hex } from "../shared/crypto.ts";
import { UnauthorizedError } from "../shared/errors.ts";
import type { AuthCache } from "./auth-cache.ts";

export interface Caller {
  projectId: string;
  keyId: string;
  keyName: string | null;
  keyEmail: string | null;
}

const KEY_SHAPE = /^qry_[A-Za-z0-9_-]{43}$/;

/**
 * Resolves a bearer key to its project. The key is hashed and looked up by hash (so no
 * secret ever reaches a query plan or a log), then the stored hash is compared in constant time.
 */
export async function authenticateApiKey(db: Database, key: string | undefined): Promise<Caller> {
  return (await authenticateWithDataset(db, key, undefined)).caller;
}

/**
 * Authentication and the dataset (or endpoint) a request names, in one round trip: every
 * dataset and endpoint route needs both, and each query is a round trip to the database.
 * The record comes back unchecked (null when it does not exist); `requireDataset` and
 * `requireEndpoint` apply the ownership rule.
 */
export async function authenticateWithDataset(
  db: Database,
  key: string | undefined,
  datasetId: string | undefined,
  endpointId?: string,
  cached?: CachedAuth,
): Promise<{ caller: Caller; dataset: DatasetRecord | null; endpoint: EndpointRecord | null }> {
  if (!key || !KEY_SHAPE.test(key)) {
    throw new UnauthorizedError("Missing or malformed API key");
  }
  const hash = await sha256Hex(key);
  const hit = cached && fromCache(cached, hash, datasetId, endpointId);
  if (hit) return hit;
  const readAt = cached?.cache.version() ?? 0;
  const [row] = await db
    .select({ key: apiKeys, dataset: datasets, endpoint: endpoints })
    .from(apiKeys)
    .leftJoin(datasets, datasetId === undefined ? sql`false` : eq(datasets.id, datasetId))
    .leftJoin(endpoints, endpointId === undefined ? sql`false` : eq(endpoints.id, endpointId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)));
  if (!row || !constantTimeEqual(row.key.keyHash, hash)) {
    throw new UnauthorizedError("Invalid or revoked API key");
  }
  const { key: found } = row;
  const caller: Caller = {
    projectId: found.projectId,
    keyId: found.id,
    keyName: found.name,
    keyEmail: found.email,
  };
  cached?.cache.rememberCaller(hash, caller, readAt);
  if (cached?.endpointFromCache && row.endpoint) {
    cached.cache.rememberEndpoint(row.endpoint, readAt);
  }
  if (cached?.datasetFromCache && row.dataset) {
    cached.cache.rememberDataset(row.dataset, readAt);
  }
  return { caller, dataset: row.dataset, endpoint: row.endpoint };
}

/** The isolate's cache, and whether this request may run on a cached endpoint. */
export interface CachedAuth {
  cache: AuthCache;
  /**
   * Only a completion may: it runs the endpoint's configuration, where a few seconds of
   * staleness is the documented price of answering before the database does. Management
   * routes read and change the record itself, so they always load it.
   */
  endpointFromCache: boolean;
  /**
   * Searches and row writes may: what they take from the record (model, dimensions, columns,
   * `ef_search`) changes only with the dataset's deletion or a new measurement; a search reads
   * the rows as they are, and a write locks the dataset's row itself, so a deletion the cache
   * has not seen is still a 404 with nothing written. Everything else loads the record.
   */
  datasetFromCache: boolean;
}

/** A request answerable from the cache alone: a known key, and no record it must load. */
function fromCache(
  { cache, endpointFromCache, datasetFromCache }: CachedAuth,
  hash: string,
  datasetId: string | undefined,
  endpointId: string | undefined,
) {
  const caller = cache.caller(hash);
  if (!caller) return undefined;
  if (datasetId !== undefined) {
    const dataset =
      datasetFromCache && endpointId === undefined ? cache.dataset(datasetId) : undefined;
    return dataset ? { caller, dataset, endpoint: null } : undefined;
  }
  if (endpointId === undefined) return { caller, dataset: null, endpoint: null };
  const endpoint = endpointFromCache ? cache.endpoint(endpointId) : undefined;
  return endpoint ? { caller, dataset: null, endpoint } : undefined;
}

/** The admin token is configuration, not data: compare hashes so length leaks nothing either. */
export async function isAdminToken(expected: string, given: string | undefined): Promise<boolean> {
  if (!given || !expected) return false;
  const [a, b] = await Promise.all([sha256Hex(expected), sha256Hex(given)]);
  return constantTimeEqual(a, b);
}
