import { createServer, type Socket } from "node:net";
import { type AcceptTransport, type Listener, startListener, type Transport } from "./transport.ts";

function socketTransport(socket: Socket): Transport {
  return {
    label: `tcp ${socket.remoteAddress}:${socket.remotePort}`,
    write(bytes) {
      // Copy: PGlite hands out views into its WASM heap that it will overwrite.
      if (socket.writable) socket.write(Buffer.from(bytes));
    },
    end() {
      if (socket.destroyed) return;
      // Destroy once flushed rather than waiting for the client's FIN: a client
      // we are dropping may never send one.
      socket.end(() => socket.destroy());
    },
    destroy() {
      socket.destroy();
    },
  };
}

/** Plain TCP listener for `pg`, psql, drizzle-kit & co. */
export function listenTcp(host: string, port: number, accept: AcceptTransport): Promise<Listener> {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    const sink = accept(socketTransport(socket));
    socket.on("data", (chunk) => sink.receive(chunk));
    socket.on("error", (err) => sink.close(`socket error: ${err.message}`));
    socket.on("close", () => sink.close("client disconnected"));
  });
  return startListener(server, host, port, () => new Promise((done) => server.close(() => done())));
}
