import { neonConfig, Pool } from "@neondatabase/serverless";
import { type Database, schema } from "@quarry/db";
import { drizzle } from "drizzle-orm/neon-serverless";

export interface DatabaseHandle {
  db: Database;
  /** Ends the connection; call it through `ctx.waitUntil` once the response is done. */
  close(): Promise<void>;
}

/**
 * Opens the database for one request or one queue batch. Workers cannot share sockets
 * between requests (a pool at module scope hangs the second request), so every request gets
 * its own Neon client over a WebSocket, which also supports interactive transactions.
 *
 * `localProxy` ("host:port") points the driver at the local stack's WebSocket endpoint
 * instead of Neon's; only `pnpm dev` sets it.
 */
export function openDatabase(connectionString: string, localProxy?: string): DatabaseHandle {
  if (localProxy) useLocalProxy(localProxy);
  const pool = new Pool({ connectionString, max: 1 });
  // A connection error on an idle client must not crash the isolate; the query that needs
  // the connection reports it.
  pool.on("error", () => {});
  const db = drizzle({ client: pool, schema }) as unknown as Database;
  return { db, close: () => pool.end() };
}

let configuredProxy: string | undefined;
function useLocalProxy(proxy: string): void {
  if (configuredProxy === proxy) return;
  configuredProxy = proxy;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}
