import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The host resolver in real workerd (the version wrangler runs): its `node:dns` asks
 * https://cloudflare-dns.com/dns-query, which miniflare's outbound service answers here from
 * a table, as Cloudflare's JSON API does. The ResolveHost contract (destination.ts): every
 * address of both families; `[]` for a name that does not exist; a 502 when the resolver
 * fails, for either family.
 */

// wrangler's own esbuild and miniflare: the ones that build and run the workers.
const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler"));
const { build } = fromWrangler("esbuild") as typeof import("esbuild");
const { Miniflare } = fromWrangler("miniflare") as typeof import("miniflare");

type Answer = { name: string; type: number; data: string }[];
type Reply = number | "hang" | "unreachable" | { Status: number; Answer?: Answer };
const A = 1;
const AAAA = 28;
const CNAME = 5;

const TABLE: Record<string, { A: Reply; AAAA: Reply }> = {
  "both.test": {
    A: { Status: 0, Answer: [{ name: "both.test", type: A, data: "93.184.216.34" }] },
    AAAA: { Status: 0, Answer: [{ name: "both.test", type: AAAA, data: "2606:2800:220:1::1" }] },
  },
  // Cloudflare follows the chain and sends it with the addresses
  "alias.test": {
    A: {
      Status: 0,
      Answer: [
        { name: "alias.test", type: CNAME, data: "target.test." },
        { name: "target.test", type: A, data: "10.0.0.7" },
      ],
    },
    AAAA: { Status: 0, Answer: [{ name: "alias.test", type: CNAME, data: "target.test." }] },
  },
  "target.test": { A: { Status: 0 }, AAAA: { Status: 3 } },
  // a chain the resolver stopped halfway: its last name is asked again
  "half.test": {
    A: { Status: 0, Answer: [{ name: "half.test", type: CNAME, data: "End.Test." }] },
    AAAA: { Status: 0 },
  },
  "end.test": {
    A: { Status: 0, Answer: [{ name: "end.test", type: A, data: "192.168.1.2" }] },
    AAAA: { Status: 0 },
  },
  "loop.test": {
    A: { Status: 0, Answer: [{ name: "loop.test", type: CNAME, data: "loop.test." }] },
    AAAA: { Status: 3 },
  },
  "nx.test": { A: { Status: 3 }, AAAA: { Status: 3 } },
  "servfail.test": { A: { Status: 2 }, AAAA: { Status: 2 } },
  "v6-fails.test": {
    A: { Status: 0, Answer: [{ name: "v6-fails.test", type: A, data: "93.184.216.34" }] },
    AAAA: 503,
  },
  "unreachable.test": { A: "unreachable", AAAA: "unreachable" },
  "hangs.test": { A: "hang", AAAA: { Status: 3 } },
};

const asked: string[] = [];
let mf: InstanceType<typeof Miniflare>;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("./support/resolver-worker.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["node:*", "cloudflare:*"],
    alias: { "@quarry/core": fileURLToPath(new URL("./support/core-subset.ts", import.meta.url)) },
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    write: false,
    logLevel: "silent",
  });
  mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]!.text,
    compatibilityDate: "2026-04-01",
    compatibilityFlags: ["nodejs_compat"],
    outboundService: async (request) => {
      const url = new URL(request.url);
      const name = url.searchParams.get("name") ?? "";
      const type = url.searchParams.get("type") as "A" | "AAAA";
      asked.push(`${url.host} ${name} ${type}`);
      const reply = TABLE[name]?.[type] ?? { Status: 3 };
      if (reply === "hang") return new Promise<Response>(() => {});
      if (reply === "unreachable") throw new Error("connection refused");
      if (typeof reply === "number") return new Response("busy", { status: reply });
      const question = [{ name, type: type === "A" ? A : AAAA }];
      return Response.json({
        TC: false,
        RD: true,
        RA: true,
        AD: false,
        CD: false,
        Question: question,
        ...reply,
      });
    },
  });
}, 120_000);
afterAll(async () => {
  await mf?.dispose();
});

async function resolve(host: string, query = "") {
  const response = await mf.dispatchFetch(`http://resolver/?host=${host}${query}`);
  return (await response.json()) as {
    addresses?: string[];
    error?: { name: string; message: string; code?: string };
  };
}

describe("host resolver on workerd's node:dns", () => {
  it("returns the addresses of both families from Cloudflare's DNS over HTTPS", async () => {
    asked.length = 0;
    expect(await resolve("Both.Test.")).toEqual({
      addresses: ["93.184.216.34", "2606:2800:220:1::1"],
    });
    expect(asked.sort()).toEqual([
      "cloudflare-dns.com both.test A",
      "cloudflare-dns.com both.test AAAA",
    ]);
  });

  it("keeps only addresses from a CNAME chain, asking again for a chain left halfway", async () => {
    expect(await resolve("alias.test")).toEqual({ addresses: ["10.0.0.7"] });
    expect(await resolve("half.test")).toEqual({ addresses: ["192.168.1.2"] });
    expect(await resolve("loop.test")).toEqual({ addresses: [] });
  });

  it("resolves a name that does not exist, or whose servers fail, to no addresses", async () => {
    expect(await resolve("nx.test")).toEqual({ addresses: [] });
    expect(await resolve("servfail.test")).toEqual({ addresses: [] });
  });

  it("is a 502 when the resolver fails, even for one family only", async () => {
    expect(await resolve("v6-fails.test")).toEqual({
      error: {
        name: "UpstreamError",
        message: "could not resolve host 'v6-fails.test': the DNS resolver failed (EBADRESP)",
        code: "upstream_error",
      },
    });
    // (miniflare turns the refused connection into a 500, which workerd reports as EBADRESP)
    expect(await resolve("unreachable.test")).toMatchObject({
      error: {
        name: "UpstreamError",
        message: expect.stringMatching(
          /^could not resolve host 'unreachable.test': the DNS resolver (failed|could not be reached)/,
        ),
        code: "upstream_error",
      },
    });
  });

  it("gives up on a resolver that does not answer, or when the caller stops waiting", async () => {
    expect(await resolve("hangs.test", "&timeout=300")).toEqual({
      error: {
        name: "UpstreamError",
        message:
          "could not resolve host 'hangs.test': the DNS resolver did not answer within 300 ms",
        code: "upstream_error",
      },
    });
    const aborted = await resolve("hangs.test", "&timeout=5000&abortAfter=200");
    expect(aborted.error?.name).toBe("TimeoutError");
  });
});
