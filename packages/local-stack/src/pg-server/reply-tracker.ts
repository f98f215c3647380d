import {
  MSG_COPY_BOTH_RESPONSE,
  MSG_COPY_IN_RESPONSE,
  MSG_ERROR_RESPONSE,
  MSG_READY_FOR_QUERY,
} from "./protocol.ts";

/**
 * Follows message boundaries in the backend byte stream of one connection, so we
 * know what the session is waiting for after each reply. Guessing from the last 6
 * bytes could misfire on row data that happens to look like ReadyForQuery; walking
 * the headers cannot. State deliberately carries over between replies: CopyData
 * gets an empty reply, and the session is still in COPY afterwards. (Not pg-protocol's
 * Parser: it would decode every row of every reply, and cannot say whether the bytes so far
 * end on a message boundary.) The native proxy follows its server sessions with it too, and
 * counts what it needs to hand a session on: the ReadyForQuery and ErrorResponse messages.
 */
export class ReplyTracker {
  /** ReadyForQuery messages read whole so far */
  readyCount = 0;
  /** ErrorResponse messages read so far */
  errorCount = 0;
  private readonly header = Buffer.alloc(5);
  private headerFill = 0;
  private bodyRemaining = 0;
  private lastType = 0;
  private lastStatus: number | undefined;

  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.bodyRemaining > 0) {
        const n = Math.min(this.bodyRemaining, chunk.length - i);
        // ReadyForQuery's body is the single status byte.
        if (this.lastType === MSG_READY_FOR_QUERY) this.lastStatus = chunk[i + n - 1];
        i += n;
        this.bodyRemaining -= n;
        if (this.bodyRemaining === 0 && this.lastType === MSG_READY_FOR_QUERY) this.readyCount++;
        continue;
      }
      this.header[this.headerFill++] = chunk[i++]!;
      if (this.headerFill === 5) {
        this.headerFill = 0;
        this.lastType = this.header[0]!;
        this.lastStatus = undefined;
        if (this.lastType === MSG_ERROR_RESPONSE) this.errorCount++;
        this.bodyRemaining = this.header.readInt32BE(1) - 4;
      }
    }
  }

  private get atBoundary(): boolean {
    return this.headerFill === 0 && this.bodyRemaining === 0;
  }

  /**
   * The transaction status if the stream so far ends with ReadyForQuery, else
   * undefined (mid extended-protocol batch, mid COPY, or an authentication exchange).
   */
  get readyStatus(): number | undefined {
    return this.atBoundary && this.lastType === MSG_READY_FOR_QUERY ? this.lastStatus : undefined;
  }

  /**
   * True if an extended-protocol message failed and nothing ended the batch yet:
   * the backend now ignores every message until Sync.
   */
  get skippingUntilSync(): boolean {
    return this.atBoundary && this.lastType === MSG_ERROR_RESPONSE;
  }

  /** True if PGlite is now waiting for CopyData from the client. */
  get inCopyIn(): boolean {
    return (
      this.atBoundary &&
      (this.lastType === MSG_COPY_IN_RESPONSE || this.lastType === MSG_COPY_BOTH_RESPONSE)
    );
  }
}
