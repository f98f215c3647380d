import {
  CANCEL_REQUEST_CODE,
  GSSENC_REQUEST_CODE,
  MAX_MESSAGE_LENGTH,
  PROTOCOL_MAJOR_3,
  SSL_REQUEST_CODE,
} from "./protocol.ts";

/**
 * One complete frontend message. Before startup completes, messages are untyped
 * (int32 length + int32 code), so they are classified by their code instead.
 */
export type FrontendMessage =
  | { kind: "ssl-request" }
  | { kind: "gssenc-request" }
  | { kind: "cancel-request" }
  | { kind: "startup"; bytes: Uint8Array }
  | { kind: "typed"; type: number; bytes: Uint8Array };

export class ProtocolError extends Error {}

/**
 * Reassembles a client's byte stream into whole messages. TCP and WebSocket frames
 * both split and coalesce messages arbitrarily, and PGlite must only ever see whole
 * messages, so every connection owns one framer. (Hand-written: pg-protocol, which the
 * server uses to build and read the messages it exchanges with PGlite, parses only a
 * backend's messages, not a client's.)
 */
export class FrontendFramer {
  private buffer: Buffer = Buffer.alloc(0);
  // Until the StartupMessage arrives the client speaks the untyped startup dialect.
  private awaitingStartup = true;

  /** Appends bytes and returns every message that is now complete, in order. */
  push(chunk: Uint8Array): FrontendMessage[] {
    this.buffer =
      this.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffer, chunk]);
    const messages: FrontendMessage[] = [];
    for (;;) {
      const message = this.awaitingStartup ? this.nextUntyped() : this.nextTyped();
      if (!message) return messages;
      messages.push(message);
    }
  }

  /** Bytes received but not yet part of a complete message. */
  get pendingBytes(): number {
    return this.buffer.length;
  }

  private take(length: number): Buffer {
    // Copy, so that the message does not pin the (possibly large) receive buffer.
    const bytes = Buffer.from(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(length);
    return bytes;
  }

  private nextUntyped(): FrontendMessage | undefined {
    if (this.buffer.length < 8) return undefined;
    const length = this.buffer.readInt32BE(0);
    const code = this.buffer.readInt32BE(4);
    if (length < 8 || length > MAX_MESSAGE_LENGTH) {
      throw new ProtocolError(`invalid startup packet length ${length}`);
    }
    if (this.buffer.length < length) return undefined;
    const bytes = this.take(length);
    switch (code) {
      case SSL_REQUEST_CODE:
        return { kind: "ssl-request" };
      case GSSENC_REQUEST_CODE:
        return { kind: "gssenc-request" };
      case CANCEL_REQUEST_CODE:
        return { kind: "cancel-request" };
    }
    if (code >>> 16 !== PROTOCOL_MAJOR_3) {
      throw new ProtocolError(`unsupported frontend protocol ${code >>> 16}.${code & 0xffff}`);
    }
    this.awaitingStartup = false;
    return { kind: "startup", bytes };
  }

  private nextTyped(): FrontendMessage | undefined {
    if (this.buffer.length < 5) return undefined;
    const type = this.buffer[0]!;
    const length = this.buffer.readInt32BE(1);
    if (length < 4 || length > MAX_MESSAGE_LENGTH) {
      throw new ProtocolError(
        `invalid length ${length} for message '${String.fromCharCode(type)}'`,
      );
    }
    if (this.buffer.length < length + 1) return undefined;
    return { kind: "typed", type, bytes: this.take(length + 1) };
  }
}
