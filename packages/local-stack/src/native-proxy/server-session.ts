import type { Socket } from "node:net";
import {
  backendMessage,
  backendMessages,
  MSG_AUTHENTICATION,
  MSG_BACKEND_KEY_DATA,
  MSG_PARAMETER_STATUS,
  MSG_READY_FOR_QUERY,
  TX_IDLE,
} from "../pg-server/protocol.ts";
import { ReplyTracker } from "../pg-server/reply-tracker.ts";

/** What a session's owner hears from its server connection. */
export interface SessionListener {
  /** bytes the server sent, to forward as they are */
  data(bytes: Buffer): void;
  /** the server connection is gone (closed or failed) */
  gone(reason: string): void;
}

/**
 * One server connection of the native proxy and what is known of it: the startup message it
 * was opened with (sessions are only reused for an identical one: same user, database and
 * options), its byte stream, followed message by message (`ReplyTracker`), and the bytes of
 * its handshake (everything the server sent up to its first ReadyForQuery).
 */
export class ServerSession {
  readonly reply = new ReplyTracker();
  private readonly handshake: Buffer[] = [];
  private listener: SessionListener | null = null;
  private goneReason: string | null = null;

  constructor(
    readonly socket: Socket,
    /** the client's StartupMessage the session was opened with, as bytes */
    readonly startup: Buffer,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (bytes: Buffer) => {
      // The server sends nothing after the handshake's ReadyForQuery until it is asked.
      if (this.reply.readyCount === 0) this.handshake.push(bytes);
      this.reply.feed(bytes);
      this.listener?.data(bytes);
    });
    socket.on("error", (error) => this.end(`server connection: ${error.message}`));
    socket.on("close", () => this.end("server closed the connection"));
    socket.resume();
  }

  /** Routes the server's bytes and its end to `listener` (null: nobody listens). */
  listen(listener: SessionListener | null): void {
    this.listener = listener;
    if (listener && this.goneReason !== null) listener.gone(this.goneReason);
  }

  get isGone(): boolean {
    return this.goneReason !== null;
  }

  /**
   * Whether the session is idle between requests: the server has sent `readyCount`
   * ReadyForQuery messages (the handshake's, then one per request it was sent), nothing of a
   * reply is pending, and no transaction is open.
   */
  isIdleAt(readyCount: number): boolean {
    const { reply } = this;
    return !this.isGone && reply.readyCount === readyCount && reply.readyStatus === TX_IDLE;
  }

  /**
   * What a client that is handed this session hears in place of the handshake it did not
   * run: AuthenticationOk, the server's parameters and key data as they were reported when
   * the session opened (RESET ALL between clients brings them back), and ReadyForQuery.
   */
  replayedHandshake(): Buffer {
    const kept = backendMessages(Buffer.concat(this.handshake)).filter(
      (m) => m.type === MSG_PARAMETER_STATUS || m.type === MSG_BACKEND_KEY_DATA,
    );
    return Buffer.concat([
      backendMessage(MSG_AUTHENTICATION, Buffer.from([0, 0, 0, 0])),
      ...kept.map((m) => backendMessage(m.type, m.body)),
      backendMessage(MSG_READY_FOR_QUERY, Buffer.from([TX_IDLE])),
    ]);
  }

  /**
   * Sends `queryBytes` (a simple Query whose reply nobody else reads) and resolves true once the
   * server is idle again without an error, false on an error, a closed connection or after
   * `timeoutMs`.
   */
  runAlone(queryBytes: Uint8Array, timeoutMs: number): Promise<boolean> {
    const expected = this.reply.readyCount + 1;
    const errorsBefore = this.reply.errorCount;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), timeoutMs);
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.listen(null);
        resolve(ok);
      };
      this.listen({
        data: () => {
          const status = this.reply.readyStatus;
          if (this.reply.readyCount < expected || status === undefined) return;
          finish(this.reply.errorCount === errorsBefore && status === TX_IDLE);
        },
        gone: () => finish(false),
      });
      this.socket.write(queryBytes);
    });
  }

  /** Closes the server connection (the backend rolls back whatever was open). */
  destroy(): void {
    this.socket.destroy();
    this.end("destroyed");
  }

  private end(reason: string): void {
    if (this.goneReason !== null) return;
    this.goneReason = reason;
    this.listener?.gone(reason);
  }
}
