import type { AddressInfo, Server } from "node:net";

/**
 * The byte pipe under one client connection. TCP sockets and WebSockets both carry
 * the raw Postgres protocol, so the connection logic only needs these three verbs.
 */
export interface Transport {
  /** Human-readable peer description, for logs. */
  readonly label: string;
  write(bytes: Uint8Array): void;
  /** Flushes pending writes, then closes. */
  end(): void;
  /** Closes immediately, dropping pending writes. */
  destroy(): void;
}

/** What a listener feeds the bytes and lifecycle events of a transport into. */
export interface TransportSink {
  receive(chunk: Uint8Array): void;
  /** The peer went away (or errored); the sink must release whatever it holds. */
  close(reason: string): void;
}

/** Builds the sink for a freshly accepted transport. */
export type AcceptTransport = (transport: Transport) => TransportSink;

export interface Listener {
  readonly port: number;
  /** Stops accepting; resolves once every socket of this listener is gone. */
  close(): Promise<void>;
}

/**
 * Starts `server` on host:port. `close` stops it: each kind of listener knows which of its
 * connections to drop so that the server's own close can finish.
 */
export function startListener(
  server: Server,
  host: string,
  port: number,
  close: () => Promise<void>,
): Promise<Listener> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({ port: (server.address() as AddressInfo).port, close });
    });
  });
}
