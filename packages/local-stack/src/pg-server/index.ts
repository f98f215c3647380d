import type { ServerResponse } from "node:http";
import type { PGlite } from "@electric-sql/pglite";
import { PgConnection } from "./connection.ts";
import { FaultPolicy, faultSwitches, type PgServerFaults } from "./faults.ts";
import { type LongTurnOptions, LongTurnReporter } from "./long-turns.ts";
import { type SessionLock, sessionLockFor } from "./session-lock.ts";
import { sqlOverHttp } from "./sql-over-http.ts";
import { listenTcp } from "./tcp-listener.ts";
import type { Listener, Transport, TransportSink } from "./transport.ts";
import { listenWebSocket } from "./ws-listener.ts";

export interface PgServerOptions {
  /** Interface to bind both listeners to. Default 127.0.0.1 (local dev only: no auth). */
  host?: string;
  /** Postgres wire protocol over TCP. Default 0: let the OS pick, so stacks can coexist. */
  pgPort?: number;
  /** Postgres wire protocol over WebSocket (Neon driver). Default 0, as above. */
  wsPort?: number;
  /**
   * A client that holds the shared session while doing nothing (typically an open
   * transaction) blocks every other client, so after this long it is disconnected
   * and rolled back. Default 30000; 0 disables.
   */
  idleInTransactionMs?: number;
  /** Debug log sink. Silent by default. */
  log?: (msg: string) => void;
  /** Reports turns on the session that took long (long-turns.ts); none by default. */
  longTurns?: LongTurnOptions;
}

export interface PgServer {
  pgPort: number;
  wsPort: number;
  host: string;
  /** Open client connections over both listeners. */
  connectionCount(): number;
  /** Closes both listeners and drops every client (rolling back); leaves `db` open. */
  close(): Promise<void>;
  /** Test-only: cuts client connections as a network failure would (off until used). */
  faults: PgServerFaults;
}

export type { PgServerFaults } from "./faults.ts";
export { type ProfileSnapshot, SessionProfile } from "./session-profile.ts";

/**
 * Serves one PGlite instance to many Postgres clients at once, over TCP and over
 * WebSocket. PGlite has a single session, so clients take turns owning it: see
 * SessionLock for the rules.
 */
export async function startPgServer(db: PGlite, opts: PgServerOptions = {}): Promise<PgServer> {
  await db.waitReady;
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? (() => {});
  const idleInTransactionMs = opts.idleInTransactionMs ?? 30_000;
  const lock = sessionLockFor<PgConnection>(db);
  const connections = new Set<PgConnection>();
  const faultPolicy = { cut: new FaultPolicy(), silence: new FaultPolicy() };
  const httpRequests = new Set<ServerResponse>();
  const longTurns = opts.longTurns ? new LongTurnReporter(opts.longTurns) : undefined;
  let shuttingDown = false;

  const accept = (transport: Transport): TransportSink => {
    const connection = new PgConnection({
      db,
      transport,
      lock,
      idleInTransactionMs,
      log,
      onClosed: (c) => connections.delete(c),
      faults: faultPolicy,
      ...(longTurns ? { longTurns } : {}),
    });
    connections.add(connection);
    // Accepted in the gap between close() starting and the listener stopping.
    if (shuttingDown) connection.close("server shutting down", "destroy");
    return connection;
  };

  const listeners: Listener[] = [];
  try {
    listeners.push(await listenTcp(host, opts.pgPort ?? 0, accept));
    listeners.push(
      await listenWebSocket(
        host,
        opts.wsPort ?? 0,
        accept,
        sqlOverHttp({
          db,
          lock: lock as SessionLock<unknown>,
          faults: faultPolicy,
          log,
          inFlight: httpRequests,
          ...(longTurns ? { longTurns } : {}),
        }),
      ),
    );
  } catch (err) {
    longTurns?.close();
    await Promise.all(listeners.map((l) => l.close()));
    throw err;
  }
  const [tcp, ws] = listeners as [Listener, Listener];
  log(`[pg-server] listening: postgres://${host}:${tcp.port} ws://${host}:${ws.port}`);

  let closed: Promise<void> | undefined;
  return {
    pgPort: tcp.port,
    wsPort: ws.port,
    host,
    connectionCount: () => connections.size,
    faults: faultSwitches(
      faultPolicy,
      (reason) => [...connections].filter((c) => c.cut(reason)).length,
      httpRequests,
    ),
    close() {
      closed ??= (async () => {
        shuttingDown = true;
        // Stop accepting first; the listeners finish closing once their sockets are gone.
        const listenersClosed = Promise.all(listeners.map((l) => l.close()));
        const open = [...connections];
        for (const c of open) c.close("server shutting down", "destroy");
        await Promise.all(open.map((c) => c.closed));
        await listenersClosed;
        longTurns?.close();
        log("[pg-server] closed");
      })();
      return closed;
    },
  };
}
