import { MAX_MESSAGE_LENGTH, PROTOCOL_MAJOR_3 } from "../pg-server/protocol.ts";

/** A frontend message that ends in a chunk: its end offset and its type (0: untyped). */
export interface MessageEnd {
  end: number;
  /** the type byte ('Q', 'S', 'X', …); 0 for the untyped startup dialect */
  type: number;
}

/**
 * Finds where the Postgres frontend messages of a client's byte stream end, without holding
 * the bytes back: the native proxy forwards every chunk as it comes, and only needs to know
 * how many messages a connection has sent so that a fault can strike after the K-th (as the
 * PGlite server counts them: the startup message is the first), and of which type each is,
 * so that a session can be handed back to the pool only when every request was answered.
 *
 * Before the StartupMessage the client speaks the untyped dialect (int32 length, int32 code:
 * SSLRequest, GSSENCRequest, CancelRequest, StartupMessage); then typed messages (byte type,
 * int32 length). A stream it cannot follow (TLS after an SSLRequest, a nonsense length) turns
 * the counting off for that connection: its bytes still flow, faults just never strike it.
 * (pg-protocol parses only backend messages, so the frontend's are walked here.)
 */
export class MessageBoundaries {
  private awaitingStartup = true;
  private header: number[] = [];
  /** bytes of the current message's body still to come */
  private remaining = 0;
  private lost = false;
  /** the type byte of the message being read */
  private type = 0;

  /** Whether the stream could not be followed (its messages are no longer reported). */
  get isLost(): boolean {
    return this.lost;
  }

  /** Whether the stream stands between two messages (nothing of a message is pending). */
  get atBoundary(): boolean {
    return !this.lost && this.remaining === 0 && this.header.length === 0;
  }

  /** Each message that ends in `chunk`, in order: where it ends and its type. */
  messages(chunk: Uint8Array): MessageEnd[] {
    const ends: MessageEnd[] = [];
    let i = 0;
    while (i < chunk.length && !this.lost) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - i);
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) ends.push({ end: i, type: this.type });
        continue;
      }
      this.header.push(chunk[i++] as number);
      const headerSize = this.awaitingStartup ? 8 : 5;
      if (this.header.length < headerSize) continue;
      const bytes = Buffer.from(this.header);
      this.header = [];
      this.type = this.awaitingStartup ? 0 : (bytes[0] as number);
      const length = bytes.readInt32BE(this.awaitingStartup ? 0 : 1);
      // The length counts itself (and, untyped, the code) but never the type byte.
      const body = length - (this.awaitingStartup ? 8 : 4);
      if (body < 0 || length > MAX_MESSAGE_LENGTH) {
        this.lost = true;
        break;
      }
      if (this.awaitingStartup && bytes.readInt32BE(4) >>> 16 === PROTOCOL_MAJOR_3) {
        this.awaitingStartup = false;
      }
      this.remaining = body;
      if (body === 0) ends.push({ end: i, type: this.type });
    }
    return ends;
  }
}
