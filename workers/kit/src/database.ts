import { neonConfig, Pool } from "@neondatabase/serverless";
import type { Database } from "@quarry/db";
import { drizzle } from "drizzle-orm/neon-serverless";

export interface DatabaseHandle {
  db: Database;
  /** Ends the connection; call it through `ctx.waitUntil` once the response is done. */
  close(): Promise<void>;
}

/**
 * Opens the database for one request or one queue batch. Workers cannot share sockets
 * between requests (a pool at module scope hangs the second request), so:
 * - a statement outside a transaction goes over HTTP (Neon's SQL-over-HTTP: `Pool.query`
 *   with `poolQueryViaFetch`), one round trip with no connection to open — most requests
 *   never open a socket at all;
 * - a transaction takes the pool's one client, a WebSocket opened on first use, which
 *   interactive transactions need.
 *
 * `localProxy` ("host:port") points the driver at the local stack's WebSocket and HTTP
 * endpoints instead of Neon's; only `pnpm dev` sets it. `timeoutMs` bounds the connect and
 * each statement, over either path.
 */
export function openDatabase(
  connectionString: string,
  options: {
    localProxy?: string | undefined;
    timeoutMs?: number;
    /** told how long each round trip to the database took (a reply's Server-Timing) */
    onRoundTrip?: (ms: number) => void;
  } = {},
): DatabaseHandle {
  if (options.localProxy) useLocalProxy(options.localProxy);
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  useHttpForSingleStatements(timeoutMs);
  // A database that stops answering (a hung backend, a black-holed route) must fail the
  // request, not hold it until the client gives up: both the connect and every query have a
  // deadline, after which the request gets a 500 and its transaction is abandoned.
  const pool = new Pool({
    connectionString,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // A connection error on an idle client must not crash the isolate; the query that needs
  // the connection reports it. (An "error" listener is the one kind that keeps
  // `poolQueryViaFetch` on.)
  pool.on("error", () => {});
  if (options.onRoundTrip) timeRoundTrips(pool, options.onRoundTrip);
  // No `schema`: given one, drizzle() derives the relational-query config of every table on
  // each call (~1 ms of a request's CPU here), for `db.query`, which Quarry does not use.
  const db = drizzle({ client: pool }) as unknown as Database;
  return { db, close: () => pool.end() };
}

/**
 * DATABASE_TIMEOUT_SECONDS: its default and the whole seconds it may be (both workers;
 * validated by `databaseConfig`, worker-config.ts).
 */
export const DATABASE_TIMEOUT_SECONDS = { default: 30, min: 1, max: 600 } as const;

const DEFAULT_DATABASE_TIMEOUT_MS = DATABASE_TIMEOUT_SECONDS.default * 1000;

/**
 * The driver's settings are global: every request of an isolate shares them, so they are set
 * once per isolate (and again only if the deadline differs).
 */
let configuredTimeoutMs: number | undefined;
function useHttpForSingleStatements(timeoutMs: number): void {
  if (configuredTimeoutMs === timeoutMs) return;
  configuredTimeoutMs = timeoutMs;
  neonConfig.poolQueryViaFetch = true;
  // Bound, like query_timeout on the WebSocket path. Called detached from globalThis, a
  // Workers fetch throws "Illegal invocation", hence the arrow.
  neonConfig.fetchFunction = (url: string, init: RequestInit) =>
    fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}

let configuredProxy: string | undefined;
function useLocalProxy(proxy: string): void {
  if (configuredProxy === proxy) return;
  configuredProxy = proxy;
  neonConfig.fetchEndpoint = () => `http://${proxy}/sql`;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/**
 * Times every statement sent through `pool`: its own `query` (a single statement, over HTTP)
 * and the `query` of each client it hands out (a transaction's statements, BEGIN and COMMIT
 * included, over its WebSocket). Drizzle sends everything through one of the two.
 */
function timeRoundTrips(pool: Pool, onRoundTrip: (ms: number) => void): void {
  const timed = new WeakSet<object>();
  const time = (target: { query: unknown }) => {
    if (timed.has(target)) return;
    timed.add(target);
    const query = (target.query as (...args: unknown[]) => unknown).bind(target);
    target.query = (...args: unknown[]) => {
      const started = performance.now();
      const result = query(...args);
      if (result instanceof Promise) {
        const report = () => onRoundTrip(performance.now() - started);
        // A side branch: the caller still gets (and handles) `result` itself.
        result.then(report, report);
      }
      return result;
    };
  };
  time(pool);
  const connect = (pool.connect as (...args: unknown[]) => unknown).bind(pool);
  (pool as { connect: unknown }).connect = (...args: unknown[]) => {
    const result = connect(...args);
    if (!(result instanceof Promise)) return result;
    return result.then((client: { query: unknown }) => {
      time(client);
      return client;
    });
  };
}
