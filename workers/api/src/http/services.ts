import {
  type AuthCache,
  type FileOpener,
  type FileStore,
  fetchSource,
  flushPendingIndexEntries,
  type PendingListFlushes,
  type ProjectContext,
  type QuerySampleGate,
  type QuerySampler,
  recordQuerySample,
  samplesCallForCalibration,
  type UrlFetcher,
  type VectorIndexRequests,
  vectorIndexMessage,
} from "@quarry/core";
import type { Database } from "@quarry/db";
import {
  createNodeDnsResolver,
  log,
  openDatabase,
  providerEnv,
  type QueueSender,
  queueSender,
  r2FileStore,
  reasonOf,
} from "@quarry/worker-kit";
import type { Bindings, Config } from "../env.ts";

/**
 * Everything a handler may use, built once per request by the services middleware.
 * Handlers never construct clients themselves. The database opens on first use.
 */
export interface Services {
  config: Config;
  db(): Database;
  /** R2: uploads and large sources are stored, read back (downloads) and deleted here */
  files: FileStore & FileOpener;
  /** E5's fetcher for `parse_url`: public addresses only unless ALLOW_PRIVATE_URLS=true */
  fetchUrl: UrlFetcher;
  /** sends a message (a slice of work, an indexing request) to the ingest worker */
  enqueue: QueueSender;
  /**
   * After a write that may store embeddings: asks the ingest worker, once the response is
   * sent, to move the dataset's vector backlog into its graph — one delayed message per
   * dataset and window in this isolate (`VectorIndexRequests`). A lost message costs speed,
   * not results (the backlog is searched exactly), and the next write asks again.
   */
  indexVectorsSoon(projectId: string, datasetId: string): void;
  /**
   * After a write of rows: counts the text it stored, and once the isolate's writes have filled
   * the GIN pending lists enough (`PendingListFlushes`), empties them after the reply, so that
   * no writer's statement has to. A flush that fails costs speed only: it is logged.
   */
  textWritten(characters: number): void;
  project(projectId: string): ProjectContext;
  /** the isolate's verified keys and endpoints; routes that revoke or change them forget */
  authCache: AuthCache;
  /**
   * Work that outlives the response (a completion stream's log row): `close` waits for it
   * before closing the database. Hand the same promise to `waitUntil`.
   */
  defer(task: Promise<unknown>): void;
  /** closes what the request opened; the middleware hands this to `waitUntil` */
  close(): Promise<void>;
}

/**
 * What requests of one isolate share: verified keys, the indexing already asked for, and when
 * each dataset's last query sample was taken.
 */
export interface IsolateState {
  authCache: AuthCache;
  indexRequests: VectorIndexRequests;
  querySampleGate: QuerySampleGate;
  pendingListFlushes: PendingListFlushes;
}

export function createServices(
  config: Config,
  bindings: Bindings,
  { authCache, indexRequests, querySampleGate, pendingListFlushes }: IsolateState,
  /** told of each database round trip (the reply's Server-Timing) */
  onRoundTrip: (ms: number) => void,
): Services {
  let handle: ReturnType<typeof openDatabase> | undefined;
  const db = () => {
    handle ??= openDatabase(config.DATABASE_URL, {
      localProxy: config.NEON_LOCAL_PROXY,
      timeoutMs: config.DATABASE_TIMEOUT_SECONDS * 1000,
      onRoundTrip,
    });
    return handle.db;
  };
  const providers = providerEnv(config);
  const deferred: Promise<unknown>[] = [];
  // Started by `close`, once the reply is out: work that must not compete with the request's
  // own statements (on PGlite it would queue before them) nor count in its Server-Timing.
  const afterReply: (() => Promise<unknown>)[] = [];
  const enqueue = queueSender(config);
  const indexVectorsSoon = (projectId: string, datasetId: string) => {
    const delaySeconds = indexRequests.claim(datasetId);
    if (delaySeconds === null) return;
    const message = vectorIndexMessage(projectId, datasetId);
    deferred.push(
      enqueue(message, { delaySeconds }).catch((error: unknown) => {
        indexRequests.release(datasetId);
        log("warn", "could not ask for vector indexing", {
          dataset: datasetId,
          reason: reasonOf(error),
        });
      }),
    );
  };
  const textWritten = (characters: number) => {
    if (!pendingListFlushes.wrote(characters)) return;
    afterReply.push(() =>
      flushPendingIndexEntries(db()).catch((error: unknown) => {
        log("warn", "search index pending entries not flushed", { reason: reasonOf(error) });
      }),
    );
  };
  // Some searches' query vectors are kept, after the reply, for the dataset's ef_search to be
  // measured on; enough of them bring the measurement on (it runs in the ingest worker).
  const querySamples = (projectId: string): QuerySampler => ({
    offer: (dataset, vector) => {
      if (!querySampleGate.claim(dataset.id)) return;
      afterReply.push(() =>
        recordQuerySample(db(), dataset, vector).then(
          (held) => {
            if (samplesCallForCalibration(dataset, held + 1)) {
              indexVectorsSoon(projectId, dataset.id);
            }
          },
          (error: unknown) => {
            log("warn", "could not keep a query sample", {
              dataset: dataset.id,
              reason: reasonOf(error),
            });
          },
        ),
      );
    },
  });
  return {
    config,
    db,
    files: r2FileStore(bindings.FILES),
    fetchUrl: (url) => fetchSource(url, sourceFetchDeps(config.ALLOW_PRIVATE_URLS)),
    enqueue,
    indexVectorsSoon,
    textWritten,
    project: (projectId) => ({
      db: db(),
      projectId,
      loaded: new Map(),
      providers,
      querySamples: querySamples(projectId),
    }),
    authCache,
    defer: (task) => {
      deferred.push(task);
    },
    close: async () => {
      for (const task of afterReply.splice(0)) deferred.push(task());
      // Deferred work may defer more (a query sample asks for a calibration): wait for all.
      for (let settled = 0; settled < deferred.length; ) {
        const pending = deferred.slice(settled);
        settled = deferred.length;
        await Promise.allSettled(pending);
      }
      await handle?.close();
    },
  };
}

/** Workers' fetch, bound: calling it detached from `globalThis` throws "Illegal invocation". */
function sourceFetchDeps(allowPrivate: boolean) {
  const runtimeFetch = (url: string, init: RequestInit) => fetch(url, init);
  return {
    fetch: runtimeFetch,
    resolveHost: createNodeDnsResolver(),
    allowPrivate,
  };
}
