/// <reference types="node" />
// Test-only: a real HTTP server on 127.0.0.1, so provider tests stop at the HTTP boundary
// instead of mocking fetch or the AI SDK.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** Parsed JSON when the body is JSON, otherwise the raw text. */
  body: unknown;
}

export type Handler = (
  request: RecordedRequest,
  response: ServerResponse,
  index: number,
) => void | Promise<void>;

export interface LoopbackServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:51234/v1`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler, basePath = "/v1"): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {}
      const url = req.url ?? "/";
      const recorded: RecordedRequest = {
        method: req.method ?? "GET",
        path: url.startsWith(basePath) ? url.slice(basePath.length) : url,
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res, requests.length - 1)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/** A port nothing listens on: bound by the OS, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
