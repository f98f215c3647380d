import { queryMessage } from "../pg-server/protocol.ts";
import type { ServerSession } from "./server-session.ts";

export interface SessionPoolOptions {
  /** idle sessions kept at most (beyond, a returned session is closed) */
  maxIdle?: number;
  /** an idle session unused this long is closed */
  idleTimeoutMs?: number;
  log?: (msg: string) => void;
}

/**
 * Session state a client may leave behind, cleared before the next client gets the session:
 * what `DISCARD ALL` clears (settings, prepared statements, temporary tables, advisory locks,
 * LISTEN, cursors, sequence state) but the backend's cached plans. PgBouncer in transaction
 * mode, Neon's pooled endpoint, hands a backend to the next client as it is, plans included;
 * `DISCARD PLANS` made every transaction here plan its triggers' statements again: a 10-row
 * insert into `rows` in a transaction took 8.4–8.8 ms on a backend reset that way, 4.9 ms on
 * one that kept its plans (the filter terms' insert alone planned in ~1 ms, three times its run).
 */
export const SESSION_RESET_SQL =
  "CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; DEALLOCATE ALL; UNLISTEN *; " +
  "SELECT pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES";
const RESET = queryMessage(SESSION_RESET_SQL);
const RESET_TIMEOUT_MS = 5_000;

/**
 * Idle server sessions of the native proxy, for reuse by the next client with the same
 * startup message — what Neon's pooled endpoint (PgBouncer) does in front of Postgres. The
 * workers open a WebSocket, so a server session, for every transaction; a backend costs a
 * process fork and a cold catalog cache (15–50 ms on a 2-core VM), more than most requests.
 *
 * A session is taken back only when its client left it idle (every request answered, no
 * transaction open); it is then reset (`SESSION_RESET_SQL`: settings, prepared statements,
 * temporary tables, advisory locks, LISTEN; not its cached plans) and kept for
 * `idleTimeoutMs`. Anything else — a client gone mid-transaction or mid-reply, a failed
 * reset — closes the server connection, and the backend rolls back what was left open, as
 * without a pool.
 */
export class SessionPool {
  private readonly idle = new Map<ServerSession, NodeJS.Timeout>();
  private readonly maxIdle: number;
  private readonly idleTimeoutMs: number;
  private readonly log: (msg: string) => void;
  private closed = false;
  /** sessions handed to a client again (for tests and logs) */
  reused = 0;
  /** sessions taken back idle (reset) so far */
  returned = 0;
  /** sessions being reset now, on their way back */
  resetting = 0;

  constructor(options: SessionPoolOptions = {}) {
    this.maxIdle = options.maxIdle ?? 32;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
    this.log = options.log ?? (() => {});
  }

  /**
   * The idle session opened with the same startup message that was used last (its backend's
   * caches are the warmest; the others can time out), now the caller's; or undefined.
   */
  take(startup: Buffer): ServerSession | undefined {
    for (const session of [...this.idle.keys()].reverse()) {
      if (session.isGone || !session.startup.equals(startup)) continue;
      const timer = this.idle.get(session);
      if (timer) clearTimeout(timer);
      this.idle.delete(session);
      this.reused++;
      return session;
    }
    return undefined;
  }

  /**
   * Takes back a session its client has left, if the server has answered everything
   * (`readyCount`: the ReadyForQuery messages it owes, see `ServerSession.isIdleAt`) and no
   * transaction is open; otherwise, or when the reset fails, closes it.
   */
  giveBack(session: ServerSession, readyCount: number): void {
    if (this.closed || !session.isIdleAt(readyCount) || this.idle.size >= this.maxIdle) {
      session.destroy();
      return;
    }
    this.resetting++;
    void session.runAlone(RESET, RESET_TIMEOUT_MS).then((reset) => {
      this.resetting--;
      if (!reset || this.closed || this.idle.size >= this.maxIdle) {
        if (!reset) this.log("[native-proxy] a session's reset failed: closed");
        session.destroy();
        return;
      }
      // A session the server closes while idle (restart, a FORCE'd DROP DATABASE) leaves.
      session.listen({ data: () => this.drop(session), gone: () => this.drop(session) });
      const timer = setTimeout(() => this.drop(session), this.idleTimeoutMs);
      timer.unref();
      this.idle.set(session, timer);
      this.returned++;
    });
  }

  /** Idle sessions now. */
  get size(): number {
    return this.idle.size;
  }

  /** Closes every idle session; sessions given back later are closed at once. */
  close(): void {
    this.closed = true;
    for (const session of [...this.idle.keys()]) this.drop(session);
  }

  private drop(session: ServerSession): void {
    const timer = this.idle.get(session);
    if (timer) clearTimeout(timer);
    this.idle.delete(session);
    session.destroy();
  }
}
