import type { DatasetRecord } from "../datasets/dataset-view.ts";
import type { EndpointRecord } from "../endpoints/endpoint-view.ts";
import type { Caller } from "./authenticate-api-key.ts";

export interface AuthCacheOptions {
  /** how long a verified key (or a loaded endpoint or dataset) is trusted without the database */
  ttlMs: number;
  /** entries kept per kind; the oldest goes first */
  maxEntries?: number;
  /** the clock, for tests */
  now?: () => number;
}

interface Entry<T> {
  value: T;
  expires: number;
}

/**
 * Verified API keys, endpoint configurations and dataset records, kept for a few seconds in
 * the isolate that loaded them, so a completion can call its model, and a search or a row
 * write run its statement, without first waiting for the database (on Workers each statement
 * is a round trip of its own; the first alone costs more than the latency budget before the
 * first token).
 *
 * The cost is a bounded staleness window: a key revoked, an endpoint changed or deleted, or a
 * dataset deleted (or its `ef_search` measured), through another isolate is still honoured
 * there for at most `ttlMs` — a search of a dataset deleted meanwhile finds no rows. The
 * isolate that made the change forgets the entry at once (`forget*`), and failed lookups are
 * never cached, so a new key works immediately. A `ttlMs` of 0 turns the cache off.
 */
export class AuthCache {
  private readonly callers = new Map<string, Entry<Caller>>();
  private readonly endpoints = new Map<string, Entry<EndpointRecord>>();
  private readonly datasets = new Map<string, Entry<DatasetRecord>>();
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** counts `forget*` calls: a record read before one may predate the change it forgot */
  private forgets = 0;

  constructor(private readonly options: AuthCacheOptions) {
    this.maxEntries = options.maxEntries ?? 1000;
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  /**
   * Take before reading from the database, and hand to `remember*`: a read that overlapped a
   * change made in this isolate is not remembered (it may hold what the change replaced).
   */
  version(): number {
    return this.forgets;
  }

  /** the caller of a key, by the key's SHA-256 */
  caller(keyHash: string): Caller | undefined {
    return this.fresh(this.callers, keyHash);
  }

  rememberCaller(keyHash: string, caller: Caller, readAt: number): void {
    this.remember(this.callers, keyHash, caller, readAt);
  }

  endpoint(endpointId: string): EndpointRecord | undefined {
    return this.fresh(this.endpoints, endpointId);
  }

  rememberEndpoint(endpoint: EndpointRecord, readAt: number): void {
    this.remember(this.endpoints, endpoint.id, endpoint, readAt);
  }

  dataset(datasetId: string): DatasetRecord | undefined {
    return this.fresh(this.datasets, datasetId);
  }

  rememberDataset(dataset: DatasetRecord, readAt: number): void {
    this.remember(this.datasets, dataset.id, dataset, readAt);
  }

  forgetDataset(datasetId: string): void {
    this.forgets++;
    this.datasets.delete(datasetId);
  }

  forgetKey(keyId: string): void {
    this.forgets++;
    for (const [hash, entry] of this.callers) {
      if (entry.value.keyId === keyId) this.callers.delete(hash);
    }
  }

  forgetEndpoint(endpointId: string): void {
    this.forgets++;
    this.endpoints.delete(endpointId);
  }

  private fresh<T>(entries: Map<string, Entry<T>>, id: string): T | undefined {
    const entry = entries.get(id);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      entries.delete(id);
      return undefined;
    }
    return entry.value;
  }

  private remember<T>(entries: Map<string, Entry<T>>, id: string, value: T, readAt: number): void {
    if (!this.enabled || readAt !== this.forgets) return;
    entries.delete(id); // re-inserted last: Map order is the eviction order
    entries.set(id, { value, expires: this.now() + this.options.ttlMs });
    if (entries.size > this.maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
  }
}
