import type { ServerResponse } from "node:http";
/**
 * Fault injection for tests (off by default): cuts client connections the way a network
 * failure or a crashed proxy would, or silences them the way a hung backend or a black-holed
 * route would. A cut destroys the client's socket at once, so the client sees its connection
 * drop mid-request; on the server side the message being executed runs to its end (a COMMIT
 * already running still commits, exactly as with a real backend whose client vanished) and
 * whatever the client left open is rolled back. A silenced connection keeps its socket open
 * and never answers again: only the client's own timeouts end its wait.
 */
export interface PgServerFaults {
  /** Cuts every open client connection now; returns how many were cut. */
  dropAll(): number;
  /**
   * Arms a cut of the next `connections` client connections (open ones and new ones): each
   * is cut right after the server has executed its `afterMessages`-th message (the startup
   * message is the first; every Parse, Bind, Execute, Sync or Query counts one).
   */
  dropAfter(options: { connections: number; afterMessages: number }): void;
  /**
   * Arms a silence of the next `connections` client connections: each stops reading (and so
   * answering) right after its `afterMessages`-th message. Use 1 (after the startup) to
   * silence connections that hold no transaction, so the one session stays free for others.
   */
  silenceAfter(options: { connections: number; afterMessages: number }): void;
  /** Disarms `dropAfter` and `silenceAfter` (connections already silenced stay silent). */
  reset(): void;
  /** How many connections the faults have cut since the server started. */
  readonly dropped: number;
  /** How many connections the faults have silenced since the server started. */
  readonly silenced: number;
}

/**
 * One kind of fault, armed for a number of connections: what a connection asks after each
 * message it has executed (only a flag check when off).
 */
export class FaultPolicy {
  armed = false;
  /** connections struck since the server started */
  struck = 0;
  private remaining = 0;
  private afterMessages = 0;

  arm(connections: number, afterMessages: number): void {
    if (!Number.isInteger(connections) || connections < 0)
      throw new RangeError("connections must be an integer >= 0");
    if (!Number.isInteger(afterMessages) || afterMessages < 1)
      throw new RangeError("afterMessages must be an integer >= 1");
    this.remaining = connections;
    this.afterMessages = afterMessages;
    this.armed = connections > 0;
  }

  reset(): void {
    this.armed = false;
    this.remaining = 0;
  }

  /** Whether the connection that has just executed its `handled`-th message is struck. */
  strikes(handled: number): boolean {
    if (!this.armed || handled !== this.afterMessages) return false;
    this.remaining--;
    if (this.remaining <= 0) this.armed = false;
    return true;
  }
}

/**
 * The fault switches of a loopback database server (PGlite's, or the native proxy), over its
 * two policies. `cutConnections` cuts every open client connection as a network failure would
 * and returns how many; SQL-over-HTTP requests in flight (`httpRequests`) are cut with them.
 */
export function faultSwitches(
  policy: { cut: FaultPolicy; silence: FaultPolicy },
  cutConnections: (reason: string) => number,
  httpRequests: Set<ServerResponse>,
): PgServerFaults {
  return {
    dropAll() {
      let cut = cutConnections("injected fault: all connections dropped");
      for (const res of httpRequests) {
        res.destroy();
        cut++;
      }
      policy.cut.struck += cut;
      return cut;
    },
    dropAfter: ({ connections, afterMessages }) => policy.cut.arm(connections, afterMessages),
    silenceAfter: ({ connections, afterMessages }) =>
      policy.silence.arm(connections, afterMessages),
    reset: () => {
      policy.cut.reset();
      policy.silence.reset();
    },
    get dropped() {
      return policy.cut.struck;
    },
    get silenced() {
      return policy.silence.struck;
    },
  };
}
