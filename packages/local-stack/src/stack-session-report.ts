import { PgConnection } from "./pg-server/connection.ts";
import { sessionLockFor } from "./pg-server/session-lock.ts";
import type { Stack } from "./stack.ts";

/**
 * Who holds the stack's database and who waits for it: the first question about a stack that
 * stopped answering. The embedded PGlite runs one session that clients take turns on, so one
 * holder that never lets go stops every request; a native server has no such single point.
 */
export function describeStackSession(stack: Stack): string {
  const open = `${stack.pg.connectionCount()} connections open`;
  if (stack.engine !== "pglite") return `native PostgreSQL behind the proxy; ${open}`;
  const lock = sessionLockFor<unknown>(stack.database);
  return `PGlite session held by ${describeOwner(lock.owner)}; ${lock.waiting} waiting; ${open}`;
}

function describeOwner(owner: unknown): string {
  if (owner === undefined) return "nobody";
  if (owner instanceof PgConnection) return `wire connection #${owner.id}`;
  if (typeof owner === "object" && owner !== null && "name" in owner) return JSON.stringify(owner);
  return "an SQL-over-HTTP statement";
}
