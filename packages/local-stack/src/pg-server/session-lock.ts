import type { PGlite } from "@electric-sql/pglite";

/**
 * PGlite has exactly one backend session, shared by every client connection.
 * Postgres session state (the unnamed prepared statement and portal, an open
 * transaction, an error awaiting Sync) therefore belongs to whichever connection
 * spoke last. This lock hands the whole session to one connection at a time: the
 * owner keeps it from its first message until the session is idle again
 * (ReadyForQuery 'I'), and everyone else waits in FIFO order.
 */
export class SessionLock<Owner> {
  private current: Owner | undefined;
  private readonly waiters: { owner: Owner; grant: (granted: boolean) => void }[] = [];
  /** How many times the session changed hands: a cheap activity signal for maintenance. */
  grants = 0;

  get owner(): Owner | undefined {
    return this.current;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves true once `owner` holds the lock, or false if the wait was cancelled. */
  acquire(owner: Owner): Promise<boolean> {
    if (this.current === owner) return Promise.resolve(true);
    if (this.current === undefined) {
      this.current = owner;
      this.grants++;
      return Promise.resolve(true);
    }
    return new Promise((grant) => this.waiters.push({ owner, grant }));
  }

  release(owner: Owner): void {
    if (this.current !== owner) return;
    const next = this.waiters.shift();
    this.current = next?.owner;
    if (next) this.grants++;
    next?.grant(true);
  }

  /** Withdraws a pending acquire (the connection went away while queued). */
  cancel(owner: Owner): void {
    const index = this.waiters.findIndex((w) => w.owner === owner);
    if (index === -1) return;
    const [waiter] = this.waiters.splice(index, 1);
    waiter?.grant(false);
  }
}

// Keyed by the PGlite instance rather than the server: two servers started on the
// same database (e.g. a test and a dev stack) would otherwise interleave sessions.
const locks = new WeakMap<PGlite, SessionLock<unknown>>();

export function sessionLockFor<Owner>(db: PGlite): SessionLock<Owner> {
  let lock = locks.get(db);
  if (!lock) {
    lock = new SessionLock<unknown>();
    locks.set(db, lock);
  }
  return lock as SessionLock<Owner>;
}
