import { MSG_ERROR_RESPONSE, MSG_READY_FOR_QUERY } from "../pg-server/protocol.ts";

/** A whole backend message: its type byte and its body (after the length). */
export interface BackendMessage {
  type: number;
  body: Buffer;
}

/**
 * Follows a server's byte stream message by message without holding it back: the native
 * proxy forwards every chunk as it comes, and reads only what a session's hand-back needs —
 * the messages up to the first ReadyForQuery (the handshake a reused session replays), how
 * many ReadyForQuery messages came, and the transaction status of the last one.
 *
 * Bodies are kept only for the handshake and for ReadyForQuery (one byte); a large DataRow is
 * skipped over, never copied.
 */
export class BackendStream {
  /** ReadyForQuery messages read, the handshake's included */
  readyCount = 0;
  /** the transaction status of the last ReadyForQuery ('I', 'T' or 'E'); 0 before the first */
  status = 0;
  /** ErrorResponse messages read */
  errorCount = 0;
  /** the messages before the first ReadyForQuery (authentication, parameters, key data) */
  readonly handshake: BackendMessage[] = [];
  private header = Buffer.alloc(5);
  private headerFill = 0;
  private remaining = 0;
  private type = 0;
  private body: Buffer | null = null;
  private bodyFill = 0;

  /** Reads `chunk`; returns the messages that ended in it and were kept (see above). */
  read(chunk: Uint8Array): BackendMessage[] {
    const kept: BackendMessage[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.headerFill < 5) {
        const take = Math.min(5 - this.headerFill, chunk.length - i);
        this.header.set(chunk.subarray(i, i + take), this.headerFill);
        this.headerFill += take;
        i += take;
        if (this.headerFill < 5) break;
        this.type = this.header[0] as number;
        if (this.type === MSG_ERROR_RESPONSE) this.errorCount++;
        this.remaining = this.header.readInt32BE(1) - 4;
        const keep = this.readyCount === 0 || this.type === MSG_READY_FOR_QUERY;
        this.body = keep ? Buffer.alloc(Math.max(0, this.remaining)) : null;
        this.bodyFill = 0;
      }
      const take = Math.min(this.remaining, chunk.length - i);
      if (this.body && take > 0) this.body.set(chunk.subarray(i, i + take), this.bodyFill);
      this.bodyFill += take;
      this.remaining -= take;
      i += take;
      if (this.remaining > 0) break;
      this.headerFill = 0;
      if (this.body) {
        const message = { type: this.type, body: this.body };
        if (this.readyCount === 0 && this.type !== MSG_READY_FOR_QUERY) {
          this.handshake.push(message);
        }
        if (this.type === MSG_READY_FOR_QUERY) {
          this.readyCount++;
          this.status = this.body[0] ?? 0;
        }
        kept.push(message);
      }
      this.body = null;
    }
    return kept;
  }

  /** Whether the stream stands between two messages. */
  get atBoundary(): boolean {
    return this.headerFill === 0 && this.remaining === 0;
  }
}

/** A backend message's bytes: type, length, body. */
export function backendMessage(type: number, body: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
