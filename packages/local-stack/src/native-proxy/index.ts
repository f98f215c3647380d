import type { ServerResponse } from "node:http";
import pg from "pg";
import { FaultPolicy, faultSwitches, type PgServerFaults } from "../pg-server/faults.ts";
import type { Listener, Transport, TransportSink } from "../pg-server/transport.ts";
import { listenWebSocket } from "../pg-server/ws-listener.ts";
import { serverAddress } from "./dial.ts";
import { Pipe } from "./pipe.ts";
import { SessionPool } from "./session-pool.ts";
import { nativeSqlOverHttp } from "./sql-over-http.ts";

export interface NativeProxyOptions {
  /** the native PostgreSQL every connection and statement goes to */
  databaseUrl: string;
  /** Interface to bind to. Default 127.0.0.1 (local dev only: no auth). */
  host?: string;
  /** Default 0: let the OS pick, so stacks can coexist. */
  wsPort?: number;
  /** Debug log sink. Silent by default. */
  log?: (msg: string) => void;
}

export interface NativeProxy {
  host: string;
  /** Neon's endpoints: WebSocket `/v1?address=…` and `POST /sql` */
  wsPort: number;
  /** Open client connections (WebSockets). */
  connectionCount(): number;
  /**
   * Server sessions kept idle now, being reset on their way back, taken back idle so far, and
   * handed to a client again so far.
   */
  sessionStats(): { idle: number; resetting: number; returned: number; reused: number };
  /** Stops listening, drops every connection, and ends the statement pool. */
  close(): Promise<void>;
  /** Test-only: cuts or silences client connections as a network failure would. */
  faults: PgServerFaults;
}

/**
 * What Neon puts in front of Postgres, locally, for a native PostgreSQL: the Neon driver in
 * the workers keeps its production code path (WebSocket for transactions, SQL-over-HTTP for
 * single statements) and reaches the real server through this proxy (`NEON_LOCAL_PROXY`).
 * WebSockets are piped byte for byte to a server session (over TLS when the URL's `sslmode`
 * asks for it, as Neon does) — the `address` the driver asks for is ignored, there is one
 * server behind this proxy — and `POST /sql` runs the statement on a pool of connections to
 * it. A WebSocket's session is reused by the next client once it left it idle
 * (`SessionPool`), as Neon's pooled endpoint reuses backends: a new backend per transaction
 * would cost each request a process fork. Unlike the PGlite server, nothing here takes turns: the
 * server runs sessions concurrently, as in production.
 */
export async function startNativeProxy(options: NativeProxyOptions): Promise<NativeProxy> {
  const host = options.host ?? "127.0.0.1";
  const log = options.log ?? (() => {});
  const server = serverAddress(options.databaseUrl);
  // Each statement holds a connection only while it runs; beyond `max`, requests queue here.
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 20 });
  // An idle pooled connection the server drops (restart, FORCE'd DROP DATABASE) must not
  // crash the process: the next statement gets a fresh one.
  pool.on("error", (error) => log(`[native-proxy] pooled connection: ${error.message}`));
  const faultPolicy = { cut: new FaultPolicy(), silence: new FaultPolicy() };
  const sessions = new SessionPool({ log });
  const pipes = new Set<Pipe>();
  const httpRequests = new Set<ServerResponse>();
  let shuttingDown = false;

  const accept = (transport: Transport): TransportSink => {
    const pipe = new Pipe({
      transport,
      server,
      sessions,
      faults: faultPolicy,
      log,
      onClosed: (p) => pipes.delete(p),
    });
    pipes.add(pipe);
    if (shuttingDown) pipe.cut("proxy shutting down");
    return pipe;
  };

  let listener: Listener;
  try {
    listener = await listenWebSocket(
      host,
      options.wsPort ?? 0,
      accept,
      nativeSqlOverHttp({ pool, faults: faultPolicy, log, inFlight: httpRequests }),
    );
  } catch (error) {
    await pool.end();
    throw error;
  }
  log(
    `[native-proxy] listening: ws://${host}:${listener.port} → ${server.host}:${server.port}${server.tls ? " (TLS)" : ""}`,
  );

  let closed: Promise<void> | undefined;
  return {
    host,
    wsPort: listener.port,
    connectionCount: () => pipes.size,
    sessionStats: () => ({
      idle: sessions.size,
      resetting: sessions.resetting,
      returned: sessions.returned,
      reused: sessions.reused,
    }),
    faults: faultSwitches(
      faultPolicy,
      (reason) => [...pipes].filter((pipe) => pipe.cut(reason)).length,
      httpRequests,
    ),
    close() {
      closed ??= (async () => {
        shuttingDown = true;
        const listenerClosed = listener.close();
        for (const pipe of [...pipes]) pipe.cut("proxy shutting down");
        sessions.close();
        await listenerClosed;
        await pool.end();
        log("[native-proxy] closed");
      })();
      return closed;
    },
  };
}
