import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_FETCH_LIMITS, fetchSource } from "../../src/fetching/index.ts";
import { BadRequestError, PayloadTooLargeError } from "../../src/shared/errors.ts";
import { type LoopbackServer, startServer, tableResolver } from "./loopback.ts";

/** These tests are about transport and limits: private addresses are allowed. */
const deps = { fetch, resolveHost: tableResolver({}), allowPrivate: true };
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

const servers: LoopbackServer[] = [];
async function serve(handler: Parameters<typeof startServer>[0]): Promise<LoopbackServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("fetchSource: what it returns", () => {
  it("returns the body, content type, final URL and a name from the path", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/csv; charset=utf-8" }).end("a,b\n1,2\n");
    });
    const url = `http://127.0.0.1:${server.port}/exports/r%C3%A9sum%C3%A9%20final.csv?x=1`;
    const fetched = await fetchSource(url, deps);
    expect(text(fetched.bytes)).toBe("a,b\n1,2\n");
    expect(fetched.contentType).toBe("text/csv; charset=utf-8");
    expect(fetched.finalUrl).toBe(url);
    expect(fetched.filename).toBe("résumé final.csv");
    expect(server.requests).toEqual([
      { method: "GET", url: "/exports/r%C3%A9sum%C3%A9%20final.csv?x=1" },
    ]);
  });

  it("prefers Content-Disposition, filename* over filename, and sanitises it", async () => {
    const server = await serve((req, res) => {
      const disposition =
        req.url === "/both"
          ? `attachment; filename="fallback.pdf"; filename*=UTF-8''%E6%9D%B1%E4%BA%AC.pdf`
          : `attachment; filename="../../etc/passwd"`;
      res.writeHead(200, { "content-disposition": disposition }).end("x");
    });
    const both = await fetchSource(`http://127.0.0.1:${server.port}/both`, deps);
    expect(both.filename).toBe("東京.pdf");
    const traversal = await fetchSource(`http://127.0.0.1:${server.port}/download`, deps);
    expect(traversal.filename).toBe("passwd");
  });

  it("has no filename or content type when the server gives none", async () => {
    const server = await serve((_req, res) => {
      res.removeHeader("content-type");
      res.end("hello");
    });
    const fetched = await fetchSource(`http://127.0.0.1:${server.port}/`, deps);
    expect(fetched.filename).toBeNull();
    expect(fetched.contentType).toBeNull();
    expect(text(fetched.bytes)).toBe("hello");
  });

  it("returns an empty body as zero bytes", async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const fetched = await fetchSource(`http://127.0.0.1:${server.port}/empty.txt`, deps);
    expect(fetched.bytes).toEqual(new Uint8Array(0));
  });
});

describe("fetchSource: redirects", () => {
  it("follows relative and absolute Locations, always with GET", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/a/start") res.writeHead(301, { location: "../b/next?q=1" }).end();
      else if (req.url === "/b/next?q=1") res.writeHead(303, { location: "/c/other" }).end();
      else if (req.url === "/c/other") {
        res.writeHead(307, { location: `http://localhost:${server.port}/d/report.pdf` }).end();
      } else res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF");
    });
    const fetched = await fetchSource(`http://127.0.0.1:${server.port}/a/start`, deps);
    expect(text(fetched.bytes)).toBe("%PDF");
    expect(fetched.finalUrl).toBe(`http://localhost:${server.port}/d/report.pdf`);
    expect(fetched.filename).toBe("report.pdf");
    expect(server.requests).toEqual([
      { method: "GET", url: "/a/start" },
      { method: "GET", url: "/b/next?q=1" },
      { method: "GET", url: "/c/other" },
      { method: "GET", url: "/d/report.pdf" },
    ]);
  });

  /** /r/N redirects to /r/N+1 while N < until, then answers 200. */
  const chain = (until: number) =>
    serve((req, res) => {
      const n = Number(req.url?.split("/")[2]);
      if (n < until) res.writeHead(302, { location: `/r/${n + 1}` }).end();
      else res.end(`arrived at ${n}`);
    });

  it(`follows up to ${DEFAULT_FETCH_LIMITS.maxRedirects} redirects by default`, async () => {
    const server = await chain(5);
    const fetched = await fetchSource(`http://127.0.0.1:${server.port}/r/0`, deps);
    expect(text(fetched.bytes)).toBe("arrived at 5");
    expect(server.requests).toHaveLength(6);
  });

  it("refuses the redirect after the limit, with 400", async () => {
    const server = await chain(10);
    await expect(fetchSource(`http://127.0.0.1:${server.port}/r/0`, deps)).rejects.toThrow(
      new BadRequestError("redirected more than 5 times", "url"),
    );
    // The first request and the five redirects it was allowed; the sixth was not followed.
    expect(server.requests.map((r) => r.url)).toEqual([
      "/r/0",
      "/r/1",
      "/r/2",
      "/r/3",
      "/r/4",
      "/r/5",
    ]);
  });

  it("refuses any redirect with maxRedirects 0", async () => {
    const server = await chain(1);
    await expect(
      fetchSource(`http://127.0.0.1:${server.port}/r/0`, deps, { maxRedirects: 0 }),
    ).rejects.toThrow(new BadRequestError("redirected more than 0 times", "url"));
    expect(server.requests).toHaveLength(1);
  });

  it("is a 400 when a redirect has no Location", async () => {
    const server = await serve((_req, res) => res.writeHead(302).end());
    await expect(fetchSource(`http://127.0.0.1:${server.port}/`, deps)).rejects.toThrow(
      new BadRequestError("the server answered 302 without a Location header", "url"),
    );
  });
});

describe("fetchSource: upstream failures are the URL's fault (400)", () => {
  it.each([404, 403, 500, 503])("names status %i", async (status) => {
    const server = await serve((_req, res) => res.writeHead(status).end("nope"));
    const error = await fetchSource(`http://127.0.0.1:${server.port}/x`, deps).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toBe(`url: the server answered ${status}`);
  });

  it("is a 400 when nothing listens", async () => {
    const server = await serve(() => {});
    const port = server.port;
    await server.close();
    await expect(fetchSource(`http://127.0.0.1:${port}/`, deps)).rejects.toThrow(
      new BadRequestError(`could not connect to 127.0.0.1:${port}`, "url"),
    );
  });

  it("is a 400 when the connection breaks mid-body", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("only a part");
      setTimeout(() => res.destroy(), 50);
    });
    await expect(fetchSource(`http://127.0.0.1:${server.port}/`, deps)).rejects.toThrow(
      new BadRequestError("the connection broke before the whole document arrived", "url"),
    );
  });
});

describe("fetchSource: time limit", () => {
  it("times out when the server never answers", async () => {
    const server = await serve(() => {}); // accepts, never responds
    const started = Date.now();
    await expect(
      fetchSource(`http://127.0.0.1:${server.port}/`, deps, { timeoutMs: 300 }),
    ).rejects.toThrow(new BadRequestError("the server did not respond within 300 ms", "url"));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(server.requests).toHaveLength(1);
  });

  it("times out on a body that trickles in, counting the whole fetch", async () => {
    let timer: NodeJS.Timeout | undefined;
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      timer = setInterval(() => res.write("."), 50); // always busy, never done
      res.on("close", () => clearInterval(timer));
    });
    const started = Date.now();
    await expect(
      fetchSource(`http://127.0.0.1:${server.port}/`, deps, { timeoutMs: 1500 }),
    ).rejects.toThrow(new BadRequestError("the server did not respond within 1.5 s", "url"));
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(5000);
    clearInterval(timer);
  });
  it("keeps the deadline even when the transport ignores the abort signal", async () => {
    const deaf: typeof deps.fetch = (url, init) => fetch(url, { ...init, signal: null });
    const server = await serve((req, res) => {
      if (req.url === "/headers") return; // never answers
      res.writeHead(200);
      const timer = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(timer));
    });
    for (const path of ["/headers", "/body"]) {
      const started = Date.now();
      await expect(
        fetchSource(
          `http://127.0.0.1:${server.port}${path}`,
          { ...deps, fetch: deaf },
          {
            timeoutMs: 400,
          },
        ),
      ).rejects.toThrow(new BadRequestError("the server did not respond within 400 ms", "url"));
      expect(Date.now() - started).toBeLessThan(3000);
    }
  });
});

describe("fetchSource: size limit", () => {
  it("refuses a declared Content-Length over the limit before reading (413)", async () => {
    const server = await serve((_req, res) => {
      // Declares 50 MB, sends a little and stalls: reading would run into the timeout.
      res.writeHead(200, { "content-length": String(50_000_000) });
      res.write("x".repeat(1000));
    });
    const started = Date.now();
    const error = await fetchSource(`http://127.0.0.1:${server.port}/big.pdf`, deps, {
      maxBytes: 1_000_000,
      timeoutMs: 10_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as PayloadTooLargeError).code).toBe("payload_too_large");
    expect((error as Error).message).toBe("url: the document is larger than 1 MB");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("stops reading a streamed body once it passes the limit (413)", async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const total = 200 * 1024 * 1024;
    let written = 0;
    let finished = false;
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }); // chunked: no length declared
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        finished = true;
        res.end();
      };
      res.on("close", () => res.removeAllListeners("drain"));
      pump();
    });
    const error = await fetchSource(`http://127.0.0.1:${server.port}/endless`, deps, {
      maxBytes: 1_000_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as Error).message).toBe("url: the document is larger than 1 MB");
    // The server could hand over only what fits in socket buffers before we hung up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(finished).toBe(false);
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it("counts decoded bytes, so a small gzip body that inflates past the limit is refused", async () => {
    const bomb = gzipSync(Buffer.alloc(5_000_000, 0));
    expect(bomb.length).toBeLessThan(100_000);
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip", "content-length": bomb.length }).end(bomb);
    });
    await expect(
      fetchSource(`http://127.0.0.1:${server.port}/`, deps, { maxBytes: 1_000_000 }),
    ).rejects.toThrow(new PayloadTooLargeError("url: the document is larger than 1 MB"));
  });

  it("accepts a body of exactly maxBytes and refuses one byte more", async () => {
    const server = await serve((req, res) => {
      // Two writes: chunked, no Content-Length, so the streamed count decides.
      res.write("y".repeat(2500));
      res.end("y".repeat(req.url === "/exact" ? 2500 : 2501));
    });
    const exact = await fetchSource(`http://127.0.0.1:${server.port}/exact`, deps, {
      maxBytes: 5000,
    });
    expect(exact.bytes.byteLength).toBe(5000);
    await expect(
      fetchSource(`http://127.0.0.1:${server.port}/over`, deps, { maxBytes: 5000 }),
    ).rejects.toThrow(new PayloadTooLargeError("url: the document is larger than 5 KB"));
  });
});

describe("fetchSource: limits themselves", () => {
  it("documents its defaults", () => {
    expect(DEFAULT_FETCH_LIMITS).toEqual({
      maxBytes: 20_000_000,
      timeoutMs: 15_000,
      maxRedirects: 5,
    });
  });

  it("rejects nonsense limits as a programming error", async () => {
    await expect(fetchSource("http://example.com/", deps, { timeoutMs: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(fetchSource("http://example.com/", deps, { maxBytes: 1.5 })).rejects.toThrow(
      RangeError,
    );
  });
});
