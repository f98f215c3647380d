import type { Socket } from "node:net";
import type { FaultPolicy } from "../pg-server/faults.ts";
import type { Transport, TransportSink } from "../pg-server/transport.ts";
import { dialServer, type ServerAddress } from "./dial.ts";
import { MessageBoundaries } from "./message-boundaries.ts";

export interface PipeOptions {
  /** the client's side: one WebSocket of the Neon driver */
  transport: Transport;
  /** the PostgreSQL server every pipe dials, whatever address the client asked for */
  server: ServerAddress;
  faults: { cut: FaultPolicy; silence: FaultPolicy };
  log: (msg: string) => void;
  onClosed: (pipe: Pipe) => void;
}

/**
 * One client connection through the native proxy: the Postgres wire protocol the Neon driver
 * speaks inside its WebSocket, passed byte for byte to a TCP connection of the real server
 * and back, as Neon's own wsproxy does. The server runs the session; the pipe only counts
 * the client's messages, so that the test faults (cut, silence after the K-th message) strike
 * where they strike on the PGlite server.
 */
export class Pipe implements TransportSink {
  /** the server connection, once dialled (and TLS negotiated, if the URL asks for it) */
  private socket: Socket | undefined;
  /** what the client sent before the server connection was up, in order */
  private queued: Uint8Array[] = [];
  /** the struck message's end, when a cut fault struck before the server connection was up */
  private endQueued = false;
  private readonly boundaries = new MessageBoundaries();
  /** client messages forwarded so far (the startup message is the first) */
  private sent = 0;
  private silenced = false;
  private closed = false;

  constructor(private readonly opts: PipeOptions) {
    dialServer(opts.server).then(
      (socket) => this.connected(socket),
      (error: Error) => this.close(`cannot reach the server: ${error.message}`),
    );
  }

  private connected(socket: Socket): void {
    if (this.closed && !this.endQueued) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on("data", (bytes: Buffer) => this.opts.transport.write(bytes));
    socket.on("error", (error) => this.close(`server connection: ${error.message}`));
    // The server ended the session (Terminate answered, a FATAL, a restart): so does the client.
    socket.on("close", () => this.close("server closed the connection"));
    socket.resume();
    for (const bytes of this.queued) socket.write(bytes);
    this.queued = [];
    if (this.endQueued) socket.end();
  }

  private write(bytes: Uint8Array): void {
    if (this.socket) this.socket.write(bytes);
    else this.queued.push(Buffer.from(bytes));
  }

  /** Sends `bytes`, then closes the server connection once they are flushed. */
  private writeAndEnd(bytes: Uint8Array): void {
    if (this.socket) this.socket.end(bytes);
    else {
      this.queued.push(Buffer.from(bytes));
      this.endQueued = true;
    }
  }

  receive(chunk: Uint8Array): void {
    if (this.closed || this.silenced) return;
    const { cut, silence } = this.opts.faults;
    for (const end of this.boundaries.ends(chunk)) {
      this.sent++;
      if (cut.armed && cut.strikes(this.sent)) {
        // The server gets the K-th message (and what it does with it stands: a COMMIT
        // commits), then the connection drops on both sides as a network failure would.
        this.writeAndEnd(chunk.subarray(0, end));
        if (this.cut(`injected fault after message ${this.sent}`)) cut.struck++;
        return;
      }
      if (silence.armed && silence.strikes(this.sent)) {
        // Forward up to the K-th message and nothing more: the server answers what it got,
        // and then the client waits on an open socket until its own deadline.
        this.write(chunk.subarray(0, end));
        this.silenced = true;
        silence.struck++;
        this.opts.log(`[native-proxy] ${this.opts.transport.label}: silenced (injected fault)`);
        return;
      }
    }
    this.write(chunk);
  }

  /** The client went away (or errored): so does its server connection, rolling back. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.opts.log(`[native-proxy] ${this.opts.transport.label}: closed (${reason})`);
    this.endQueued = false;
    this.socket?.destroy();
    this.opts.transport.end();
    this.opts.onClosed(this);
  }

  /** Drops the connection on both sides at once; false when it was already closed. */
  cut(reason: string): boolean {
    if (this.closed) return false;
    this.opts.transport.destroy();
    // After `end()` of a struck message the socket still flushes it before closing.
    if (this.socket && !this.socket.writableEnded) this.socket.destroy();
    this.closed = true;
    this.opts.log(`[native-proxy] ${this.opts.transport.label}: cut (${reason})`);
    this.opts.onClosed(this);
    return true;
  }
}
