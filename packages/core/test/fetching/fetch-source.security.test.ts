import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fetchSource } from "../../src/fetching/index.ts";
import { BadRequestError, UpstreamError } from "../../src/shared/errors.ts";
import {
  forbiddenFetch,
  hostsFetch,
  type LoopbackServer,
  startServer,
  tableResolver,
} from "./loopback.ts";

/** Public addresses the made-up names "resolve" to (the transport still connects locally). */
const PUBLIC_V4 = "93.184.216.34";
const PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946";

/** Names our resolver reports, and the transport maps to the loopback server. */
const NAMES: Record<string, string[]> = {
  "files.example.com": [PUBLIC_V4],
  "other.example.com": [PUBLIC_V4, PUBLIC_V6],
  "evil.example.com": ["127.0.0.1"],
  "mixed.example.com": [PUBLIC_V4, "127.0.0.1"],
  "mixed6.example.com": [PUBLIC_V6, "::1"],
  "intranet.example.com": ["10.1.2.3"],
  "metadata.example.com": ["169.254.169.254"],
  "mapped.example.com": ["::ffff:7f00:1"],
  "garbage.example.com": ["not-an-address"],
};

let trap: LoopbackServer;
beforeAll(async () => {
  trap = await startServer();
});
afterAll(async () => {
  await trap.close();
});
beforeEach(() => {
  trap.requests.length = 0;
});

function deps(allowPrivate: boolean, resolved: string[] = []) {
  return {
    fetch: hostsFetch(Object.keys(NAMES)),
    resolveHost: tableResolver(NAMES, resolved),
    allowPrivate,
  };
}

/** Every way we know to spell "the loopback server" in a URL. */
const hostileForms: { url: (port: number) => string; message: string }[] = [
  { url: (p) => `http://127.0.0.1:${p}/secret`, message: "127.0.0.1 is a loopback address" },
  { url: (p) => `http://127.1:${p}/`, message: "127.0.0.1 is a loopback address" },
  { url: (p) => `http://0x7f000001:${p}/`, message: "127.0.0.1 is a loopback address" },
  { url: (p) => `http://2130706433:${p}/`, message: "127.0.0.1 is a loopback address" },
  { url: (p) => `http://0177.0.0.1:${p}/`, message: "127.0.0.1 is a loopback address" },
  { url: (p) => `http://127.0.0.1.:${p}/`, message: "127.0.0.1 is a loopback address" },
  { url: (p) => `http://0.0.0.0:${p}/`, message: "0.0.0.0 is an unspecified address" },
  { url: (p) => `http://[::1]:${p}/`, message: "[::1] is a loopback address" },
  {
    url: (p) => `http://[::ffff:127.0.0.1]:${p}/`,
    message: "[::ffff:7f00:1] is a loopback address",
  },
  { url: (p) => `http://[::ffff:7f00:1]:${p}/`, message: "[::ffff:7f00:1] is a loopback address" },
  {
    url: (p) => `http://[0:0:0:0:0:ffff:7f00:1]:${p}/`,
    message: "[::ffff:7f00:1] is a loopback address",
  },
  { url: (p) => `http://localhost:${p}/`, message: "host 'localhost' is not a public host name" },
  {
    url: (p) => `http://evil.example.com:${p}/`,
    message: "host 'evil.example.com' resolves to an address that is not public",
  },
  {
    url: (p) => `http://mixed.example.com:${p}/`,
    message: "host 'mixed.example.com' resolves to an address that is not public",
  },
  {
    url: (p) => `http://mixed6.example.com:${p}/`,
    message: "host 'mixed6.example.com' resolves to an address that is not public",
  },
  {
    url: (p) => `http://mapped.example.com:${p}/`,
    message: "host 'mapped.example.com' resolves to an address that is not public",
  },
];

describe("fetchSource refuses loopback in every spelling", () => {
  it.each(hostileForms)("refuses $url without sending a request", async ({ url, message }) => {
    const target = url(trap.port);
    const error = await fetchSource(target, deps(false)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toBe(
      `url: ${message}; only public addresses can be fetched`,
    );
    expect(trap.requests).toEqual([]);
  });

  // The control: the same URLs do reach the server when private addresses are allowed, so
  // the refusals above are not an accident of a URL that could never have connected.
  it.each(hostileForms)("reaches the server with $url when allowPrivate", async ({ url }) => {
    const fetched = await fetchSource(url(trap.port), deps(true));
    expect(new TextDecoder().decode(fetched.bytes)).toBe("secret");
    expect(trap.requests).toHaveLength(1);
  });

  it("does not even resolve local names, and never asks the resolver when allowPrivate", async () => {
    const resolved: string[] = [];
    await expect(
      fetchSource(`http://localhost:${trap.port}/`, deps(false, resolved)),
    ).rejects.toThrow(BadRequestError);
    await fetchSource(`http://files.example.com:${trap.port}/`, deps(true, resolved));
    expect(resolved).toEqual([]);
  });
});

describe("fetchSource refuses internal destinations before any request", () => {
  const cases: { url: string; message: string }[] = [
    {
      url: "http://169.254.169.254/latest/meta-data/",
      message: "169.254.169.254 is a link-local address",
    },
    {
      url: "http://metadata.google.internal/computeMetadata/v1/",
      message: "host 'metadata.google.internal' is not a public host name",
    },
    { url: "http://metadata.goog/", message: "host 'metadata.goog' is a cloud metadata host name" },
    { url: "http://metadata/", message: "host 'metadata' is not a public host name" },
    { url: "http://printer.local/", message: "host 'printer.local' is not a public host name" },
    { url: "http://app.localhost/", message: "host 'app.localhost' is not a public host name" },
    { url: "http://LOCALHOST./", message: "host 'localhost.' is not a public host name" },
    {
      url: "http://100.100.100.200/",
      message: "100.100.100.200 is a shared (carrier-grade NAT) address",
    },
    { url: "http://10.0.0.1/", message: "10.0.0.1 is a private address" },
    { url: "http://172.16.0.1/", message: "172.16.0.1 is a private address" },
    { url: "http://192.168.1.1:8080/", message: "192.168.1.1 is a private address" },
    { url: "http://198.18.0.1/", message: "198.18.0.1 is a benchmarking address" },
    { url: "http://224.0.0.1/", message: "224.0.0.1 is a multicast address" },
    { url: "http://255.255.255.255/", message: "255.255.255.255 is the broadcast address" },
    { url: "http://[fd00:ec2::254]/", message: "[fd00:ec2::254] is a unique-local address" },
    { url: "http://[fe80::1]/", message: "[fe80::1] is a link-local address" },
    { url: "http://[::]/", message: "[::] is an unspecified address" },
    { url: "http://[64:ff9b::a00:1]/", message: "[64:ff9b::a00:1] is a private address" },
    { url: "http://[2002:7f00:1::]/", message: "[2002:7f00:1::] is a loopback address" },
    { url: "http://[::ffff:a9fe:a9fe]/", message: "[::ffff:a9fe:a9fe] is a link-local address" },
    {
      url: "http://intranet.example.com/",
      message: "host 'intranet.example.com' resolves to an address that is not public",
    },
    {
      url: "http://metadata.example.com/",
      message: "host 'metadata.example.com' resolves to an address that is not public",
    },
    {
      url: "http://garbage.example.com/",
      message: "host 'garbage.example.com' resolves to an address that is not public",
    },
  ];

  it.each(cases)("$url", async ({ url, message }) => {
    const calls: string[] = [];
    const error = await fetchSource(url, {
      fetch: forbiddenFetch(calls),
      resolveHost: tableResolver(NAMES),
      allowPrivate: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toBe(`url: ${message}; only public addresses can be fetched`);
    expect(calls).toEqual([]);
  });
});

describe("fetchSource validates the URL itself", () => {
  const cases: { url: string; message: string }[] = [
    { url: "not a url", message: "must be an absolute http or https URL" },
    { url: "/relative/path", message: "must be an absolute http or https URL" },
    { url: "file:///etc/passwd", message: "must be an http or https URL (got file)" },
    { url: "ftp://example.com/a.txt", message: "must be an http or https URL (got ftp)" },
    { url: "gopher://example.com:70/", message: "must be an http or https URL (got gopher)" },
    { url: "data:text/plain,hello", message: "must be an http or https URL (got data)" },
    { url: "javascript:alert(1)", message: "must be an http or https URL (got javascript)" },
    { url: "http://user:pass@example.com/", message: "must not contain a user name or password" },
    { url: "https://user@example.com/", message: "must not contain a user name or password" },
    { url: "http://:secret@example.com/", message: "must not contain a user name or password" },
  ];

  it.each(cases)("$url", async ({ url, message }) => {
    const calls: string[] = [];
    for (const allowPrivate of [false, true]) {
      const error = await fetchSource(
        url,
        { fetch: forbiddenFetch(calls), resolveHost: tableResolver(NAMES), allowPrivate },
        {},
        "documents[2].url",
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as Error).message).toBe(`documents[2].url: ${message}`);
    }
    expect(calls).toEqual([]);
  });
});

describe("fetchSource re-checks every redirect hop", () => {
  let origin: LoopbackServer;
  let location = "";
  beforeAll(async () => {
    origin = await startServer((_req, res) => {
      res.writeHead(302, { location }).end();
    });
  });
  afterAll(async () => {
    await origin.close();
  });
  beforeEach(() => {
    origin.requests.length = 0;
  });

  const refused: { to: (port: number) => string; message: string }[] = [
    {
      to: (p) => `http://127.0.0.1:${p}/secret`,
      message: "redirected to 127.0.0.1, which is a loopback address",
    },
    {
      to: (p) => `http://[::1]:${p}/`,
      message: "redirected to [::1], which is a loopback address",
    },
    {
      to: (p) => `http://localhost:${p}/`,
      message: "redirected to host 'localhost', which is not a public host name",
    },
    {
      to: (p) => `http://evil.example.com:${p}/`,
      message:
        "redirected to host 'evil.example.com', which resolves to an address that is not public",
    },
    {
      to: () => "http://169.254.169.254/latest/meta-data/iam/",
      message: "redirected to 169.254.169.254, which is a link-local address",
    },
  ];

  it.each(refused)("refuses a redirect to $to", async ({ to, message }) => {
    location = to(trap.port);
    const error = await fetchSource(
      `http://files.example.com:${origin.port}/start`,
      deps(false),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toBe(`url: ${message}; only public addresses can be fetched`);
    expect(origin.requests).toEqual([{ method: "GET", url: "/start" }]);
    expect(trap.requests).toEqual([]);
  });

  it("refuses a redirect to another scheme", async () => {
    location = "file:///etc/passwd";
    await expect(
      fetchSource(`http://files.example.com:${origin.port}/`, deps(false)),
    ).rejects.toThrow(new BadRequestError("redirected to an http or https URL (got file)", "url"));
  });

  it("refuses a redirect to a name that does not resolve", async () => {
    location = "https://nowhere.example.com/";
    await expect(
      fetchSource(`http://files.example.com:${origin.port}/`, deps(false)),
    ).rejects.toThrow(
      new BadRequestError(
        "redirected to host 'nowhere.example.com', which could not be resolved",
        "url",
      ),
    );
  });

  it("follows a redirect to a public host (control)", async () => {
    location = `http://other.example.com:${trap.port}/landing`;
    const fetched = await fetchSource(`http://files.example.com:${origin.port}/start`, deps(false));
    expect(new TextDecoder().decode(fetched.bytes)).toBe("secret");
    expect(fetched.finalUrl).toBe(`http://other.example.com:${trap.port}/landing`);
    expect(trap.requests).toEqual([{ method: "GET", url: "/landing" }]);
  });
});

describe("fetchSource when resolution fails", () => {
  it("is a 400 when the name has no addresses", async () => {
    await expect(
      fetchSource("https://nowhere.example.com/x", {
        fetch: forbiddenFetch([]),
        resolveHost: tableResolver({}),
        allowPrivate: false,
      }),
    ).rejects.toThrow(new BadRequestError("could not resolve host 'nowhere.example.com'", "url"));
  });

  it("is a 502 when the resolver itself fails", async () => {
    const error = await fetchSource("https://example.com/x", {
      fetch: forbiddenFetch([]),
      resolveHost: async () => {
        throw new Error("socket hang up");
      },
      allowPrivate: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe("upstream_error");
    expect((error as Error).message).toBe(
      "could not resolve host 'example.com': the DNS lookup failed",
    );
  });

  it("passes the resolver's domain errors on unchanged", async () => {
    const own = new UpstreamError("DNS resolver answered 503");
    await expect(
      fetchSource("https://example.com/", {
        fetch: forbiddenFetch([]),
        resolveHost: async () => {
          throw own;
        },
        allowPrivate: false,
      }),
    ).rejects.toBe(own);
  });

  it("times out when the resolver never answers", async () => {
    const started = Date.now();
    await expect(
      fetchSource(
        "https://example.com/",
        {
          fetch: forbiddenFetch([]),
          resolveHost: () => new Promise(() => {}),
          allowPrivate: false,
        },
        { timeoutMs: 200 },
      ),
    ).rejects.toThrow(new BadRequestError("the server did not respond within 200 ms", "url"));
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
