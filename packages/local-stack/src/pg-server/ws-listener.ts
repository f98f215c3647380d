import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { type AcceptTransport, type Listener, startListener, type Transport } from "./transport.ts";

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function webSocketTransport(ws: WebSocket, label: string): Transport {
  return {
    label,
    write(bytes) {
      // Copy: PGlite hands out views into its WASM heap that it will overwrite.
      if (ws.readyState === WebSocket.OPEN) ws.send(Buffer.from(bytes), { binary: true });
    },
    end() {
      // Graceful close handshake; `ws` terminates by itself if the peer never answers.
      const closable = ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING;
      if (closable) ws.close(1000);
    },
    destroy() {
      ws.terminate();
    },
  };
}

/**
 * WebSocket listener for the Neon serverless driver. It behaves like Neon's
 * wsproxy: each WebSocket is one Postgres connection whose binary frames are raw
 * protocol bytes. The `?address=host:port` the driver appends is ignored — there is
 * only one database behind this proxy.
 */
export function listenWebSocket(
  host: string,
  port: number,
  accept: AcceptTransport,
  /** plain HTTP requests to `POST /sql` (Neon's SQL-over-HTTP); others get a 426 */
  sql?: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<Listener> {
  const server = createServer((req, res) => {
    if (sql && req.method === "POST" && req.url?.split("?")[0] === "/sql") {
      void sql(req, res);
      return;
    }
    res.writeHead(426, { Upgrade: "websocket", "Content-Type": "text/plain" });
    res.end("This endpoint speaks WebSocket (Postgres wire protocol), and POST /sql.\n");
  });
  // Never close an idle keep-alive connection from this side. workerd pools its connections
  // to `/sql`; when Node closed one after its default 5 s of quiet just as workerd sent the
  // next statement down it, the statement failed with "Network connection lost" (seen as a
  // rare 500 under load). The client closes its own idle connections; close() drops the rest.
  server.keepAliveTimeout = 0;
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on("upgrade", (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const label = `ws ${req.socket.remoteAddress}:${req.socket.remotePort} ${req.url ?? ""}`;
      const sink = accept(webSocketTransport(ws, label));
      ws.on("message", (data) => sink.receive(toBuffer(data)));
      ws.on("error", (err) => sink.close(`websocket error: ${err.message}`));
      ws.on("close", () => sink.close("client disconnected"));
    });
  });
  return startListener(
    server,
    host,
    port,
    () =>
      new Promise((done) => {
        wss.close();
        server.close(() => done());
        // Drops idle keep-alive HTTP connections that would hold close() open.
        server.closeAllConnections();
      }),
  );
}
