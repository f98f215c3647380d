import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FetchLike, ResolveHost } from "../../src/fetching/index.ts";

export interface LoopbackServer {
  port: number;
  /** Every request the server received, in order. */
  requests: { method: string; url: string }[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on the loopback interface. It listens on `::` (dual stack), so it is
 * reachable as 127.0.0.1, ::1, ::ffff:127.0.0.1, 0.0.0.0 and localhost alike.
 */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.end("secret");
  },
): Promise<LoopbackServer> {
  const requests: LoopbackServer["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "" });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "::", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A real transport for made-up names: like an /etc/hosts file in front of Node's fetch, it
 * connects to 127.0.0.1 for the names listed. It lets a name that our resolver calls public
 * be served by a loopback server without touching the code under test.
 */
export function hostsFetch(names: string[], calls: string[] = []): FetchLike {
  return (url, init) => {
    calls.push(url);
    const target = new URL(url);
    if (names.includes(target.hostname)) target.hostname = "127.0.0.1";
    return fetch(target, init);
  };
}

/** A resolver answering from a table; unknown names have no addresses. Records each call. */
export function tableResolver(table: Record<string, string[]>, calls: string[] = []): ResolveHost {
  return async (hostname) => {
    calls.push(hostname);
    return table[hostname] ?? [];
  };
}

/** A fetch that must not be called: it records the attempt and fails. */
export function forbiddenFetch(calls: string[]): FetchLike {
  return async (url) => {
    calls.push(url);
    throw new Error(`fetch must not be called (got ${url})`);
  };
}
