import type { FaultPolicy } from "../pg-server/faults.ts";
import {
  MSG_FUNCTION_CALL,
  MSG_QUERY,
  MSG_SYNC,
  MSG_TERMINATE,
  PROTOCOL_MAJOR_3,
} from "../pg-server/protocol.ts";
import type { Transport, TransportSink } from "../pg-server/transport.ts";
import { dialServer, type ServerAddress } from "./dial.ts";
import { MessageBoundaries } from "./message-boundaries.ts";
import { ServerSession } from "./server-session.ts";
import type { SessionPool } from "./session-pool.ts";

/** The frontend messages the server answers with a ReadyForQuery of its own. */
const REQUESTS = new Set([MSG_QUERY, MSG_SYNC, MSG_FUNCTION_CALL]);

export interface PipeOptions {
  /** the client's side: one WebSocket of the Neon driver */
  transport: Transport;
  /** the PostgreSQL server every pipe dials, whatever address the client asked for */
  server: ServerAddress;
  /** idle server sessions: taken for a client's startup, given back when it leaves */
  sessions: SessionPool;
  faults: { cut: FaultPolicy; silence: FaultPolicy };
  log: (msg: string) => void;
  onClosed: (pipe: Pipe) => void;
}

/**
 * One client connection through the native proxy: the Postgres wire protocol the Neon driver
 * speaks inside its WebSocket, passed byte for byte to a server session and back, as Neon's
 * own wsproxy does. The session is an idle one from the pool when one was opened with the
 * same startup message (the client then hears a replayed handshake), else a new connection
 * whose handshake runs through. When the client leaves, its session goes back to the pool
 * if every request was answered and no transaction is open (a Terminate is held back for
 * that), and is closed otherwise, rolling back. The pipe counts the client's messages so
 * that the test faults (cut, silence after the K-th message) strike where they strike on the
 * PGlite server.
 */
export class Pipe implements TransportSink {
  private session: ServerSession | undefined;
  /** what the client sent before the session was attached, in order */
  private queued: Uint8Array[] = [];
  /** the struck message's end, when a cut fault struck before the session was attached */
  private endQueued = false;
  private readonly boundaries = new MessageBoundaries();
  /** the first message's bytes while it is still arriving; null once it is whole */
  private firstParts: Buffer[] | null = [];
  /** client messages so far (the startup message is the first) */
  private sent = 0;
  /** requests forwarded (Query, Sync, FunctionCall): each gets one ReadyForQuery */
  private requests = 0;
  /** ReadyForQuery messages the session had sent before this client's first request */
  private readyBase = 0;
  /** messages forwarded since the last request: a session owing their reply is not idle */
  private unsynced = 0;
  /** false once the stream cannot be followed (TLS inside, an SSLRequest): never pooled */
  private poolable = true;
  private silenced = false;
  private closed = false;

  constructor(private readonly opts: PipeOptions) {}

  receive(chunk: Uint8Array): void {
    if (this.closed || this.silenced) return;
    const continuing = !this.boundaries.atBoundary;
    const messages = this.boundaries.messages(chunk);
    if (this.boundaries.isLost) this.poolable = false;
    const { cut, silence } = this.opts.faults;
    // bytes of `chunk` before `from` are dealt with (forwarded, or held back)
    let from = 0;
    for (const [i, { end, type }] of messages.entries()) {
      const start = i === 0 ? 0 : (messages[i - 1]?.end ?? 0);
      this.sent++;
      if (this.firstParts) {
        const first = Buffer.concat([...this.firstParts, chunk.subarray(0, end)]);
        this.firstParts = null;
        from = end;
        this.begin(first);
      } else if (type === MSG_TERMINATE && this.poolable && !(i === 0 && continuing)) {
        // Held back: the session may serve another client. The client hears the close a
        // server sends after Terminate.
        this.forward(chunk.subarray(from, start));
        this.close("client terminated");
        return;
      } else if (REQUESTS.has(type)) {
        this.requests++;
        this.unsynced = 0;
      } else {
        this.unsynced++;
      }
      if (cut.armed && cut.strikes(this.sent)) {
        // The server gets the K-th message (and what it does with it stands: a COMMIT
        // commits), then the connection drops on both sides as a network failure would.
        this.forwardAndEnd(chunk.subarray(from, end));
        if (this.cut(`injected fault after message ${this.sent}`)) cut.struck++;
        return;
      }
      if (silence.armed && silence.strikes(this.sent)) {
        // Forward up to the K-th message and nothing more: the server answers what it got,
        // and then the client waits on an open socket until its own deadline.
        this.forward(chunk.subarray(from, end));
        this.silenced = true;
        silence.struck++;
        this.opts.log(`[native-proxy] ${this.opts.transport.label}: silenced (injected fault)`);
        return;
      }
    }
    if (this.firstParts) this.firstParts.push(Buffer.from(chunk));
    else this.forward(chunk.subarray(from));
  }

  /** The client went away (or errored, or terminated): its session is given back or closed. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.opts.log(`[native-proxy] ${this.opts.transport.label}: closed (${reason})`);
    this.endQueued = false;
    const session = this.session;
    if (session) {
      session.listen(null);
      const answered = this.poolable && !this.silenced && this.unsynced === 0;
      if (answered && this.boundaries.atBoundary)
        this.opts.sessions.giveBack(session, this.readyBase + this.requests);
      else session.destroy();
    }
    this.opts.transport.end();
    this.opts.onClosed(this);
  }

  /** Drops the connection on both sides at once; false when it was already closed. */
  cut(reason: string): boolean {
    if (this.closed) return false;
    this.opts.transport.destroy();
    // After `end()` of a struck message the socket still flushes it before closing.
    if (this.session && !this.session.socket.writableEnded) this.session.destroy();
    this.closed = true;
    this.opts.log(`[native-proxy] ${this.opts.transport.label}: cut (${reason})`);
    this.opts.onClosed(this);
    return true;
  }

  /**
   * The client's first message is whole: a StartupMessage takes an idle session opened with
   * the same one, if any; anything else (or no idle session) dials the server and sends it.
   * While a test fault is armed every client gets a new connection, so that a fault striking
   * its startup meets a server that runs the handshake, as without a pool.
   */
  private begin(first: Buffer): void {
    const isStartup = first.length >= 8 && first.readInt32BE(4) >>> 16 === PROTOCOL_MAJOR_3;
    if (!isStartup) this.poolable = false;
    const { cut, silence } = this.opts.faults;
    const reuse = this.poolable && !cut.armed && !silence.armed;
    const idle = reuse ? this.opts.sessions.take(first) : undefined;
    if (idle) {
      this.readyBase = idle.reply.readyCount;
      this.attach(idle);
      this.opts.transport.write(idle.replayedHandshake());
      return;
    }
    this.queued.push(first);
    this.readyBase = 1; // the handshake's
    dialServer(this.opts.server).then(
      (socket) => this.attach(new ServerSession(socket, first)),
      (error: Error) => this.close(`cannot reach the server: ${error.message}`),
    );
  }

  private attach(session: ServerSession): void {
    if (this.closed && !this.endQueued) {
      session.destroy();
      return;
    }
    this.session = session;
    session.listen({
      data: (bytes) => this.opts.transport.write(bytes),
      // The server ended the session (a FATAL, a restart): so does the client.
      gone: (reason) => this.close(reason),
    });
    for (const bytes of this.queued) session.socket.write(bytes);
    this.queued = [];
    if (this.endQueued) session.socket.end();
  }

  private forward(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.session) this.session.socket.write(bytes);
    else this.queued.push(Buffer.from(bytes));
  }

  /** Sends `bytes`, then closes the server connection once they are flushed. */
  private forwardAndEnd(bytes: Uint8Array): void {
    if (this.session) this.session.socket.end(bytes);
    else {
      if (bytes.length > 0) this.queued.push(Buffer.from(bytes));
      this.endQueued = true;
    }
  }
}
