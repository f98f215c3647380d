/**
 * Fault injection for tests (off by default): cuts client connections the way a network
 * failure or a crashed proxy would. A cut destroys the client's socket at once, so the client
 * sees its connection drop mid-request; on the server side the message being executed runs
 * to its end (a COMMIT already running still commits, exactly as with a real backend whose
 * client vanished) and whatever the client left open is rolled back.
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
  /** Disarms `dropAfter`. */
  reset(): void;
  /** How many connections the faults have cut since the server started. */
  readonly dropped: number;
}

/** What a connection asks after each message it has executed: only a flag check when off. */
export class FaultPolicy {
  armed = false;
  dropped = 0;
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

  /** Whether the connection that has just executed its `handled`-th message must be cut. */
  shouldCut(handled: number): boolean {
    if (!this.armed || handled !== this.afterMessages) return false;
    this.remaining--;
    if (this.remaining <= 0) this.armed = false;
    return true;
  }
}
