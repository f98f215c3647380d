import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { timeStream } from "../src/benches/completions/stream-timing.ts";
import { createHttpClient } from "../src/harness/http.ts";

/**
 * The benches' keep-alive clients against a loopback server that drops a connection when a
 * request arrives on it after the connection's first: what a server's idle timeout does when it
 * closes a pooled socket just as the client sends on it ("socket hang up" on a reused socket).
 */
const SSE = 'data: {"choices":[{"text":"hello"}],"usage_id":"log_1"}\n\ndata: [DONE]\n\n';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** Answers the first request of each connection; `dropAll` drops every request instead. */
async function flakyServer(options: { dropAll?: boolean } = {}) {
  const served = new WeakMap<object, number>();
  let answered = 0;
  const bodies: string[] = [];
  server = http.createServer((req, res) => {
    const seen = served.get(req.socket) ?? 0;
    served.set(req.socket, seen + 1);
    if (options.dropAll || seen > 0) {
      req.socket.destroy();
      return;
    }
    answered++;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      const stream = req.url === "/stream";
      res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
      res.end(stream ? SSE : JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, answered: () => answered, bodies: () => bodies };
}

describe("keep-alive clients on a socket the server closed", () => {
  it("send a stream's request again on a new socket, and time the one that was answered", async () => {
    const peer = await flakyServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await timeStream(agent, `${peer.url}/stream`, { n: 1 }, "key");
      const second = await timeStream(agent, `${peer.url}/stream`, { n: 2 }, "key");
      for (const timing of [first, second]) {
        expect(timing).toMatchObject({ text: "hello", done: true, usageId: "log_1" });
      }
      expect(peer.answered()).toBe(2);
    } finally {
      agent.destroy();
    }
  });

  it("send a JSON request again the same way", async () => {
    const peer = await flakyServer();
    const client = createHttpClient(peer.url, { maxSockets: 1 });
    try {
      await client.post("/json", { n: 1 });
      const again = await client.post<{ ok: boolean }>("/json", { n: 2 });
      expect(again.body).toEqual({ ok: true });
      expect(peer.answered()).toBe(2);
    } finally {
      client.close();
    }
  });

  it("send an upload (a multipart form) again the same way, whole", async () => {
    const peer = await flakyServer();
    const client = createHttpClient(peer.url, { maxSockets: 1 });
    const form = () => {
      const f = new FormData();
      f.append("document_id", "doc-1");
      f.append("file", new Blob(["a,b\n1,2\n"], { type: "text/csv" }), "t.csv");
      return f;
    };
    try {
      await client.postForm("/upload", form());
      const again = await client.postForm<{ ok: boolean }>("/upload", form());
      expect(again.body).toEqual({ ok: true });
      expect(peer.answered()).toBe(2);
      const bodies = peer.bodies();
      expect(bodies[1]).toContain('name="document_id"');
      expect(bodies[1]).toContain("a,b\n1,2\n");
    } finally {
      client.close();
    }
  });

  it("report a connection the server drops at once, which no retry can mend", async () => {
    const peer = await flakyServer({ dropAll: true });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await expect(timeStream(agent, `${peer.url}/stream`, {}, "key")).rejects.toThrow(
        /socket hang up/,
      );
    } finally {
      agent.destroy();
    }
  });
});
