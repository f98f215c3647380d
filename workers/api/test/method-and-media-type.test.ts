import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, expectEnvelope } from "./support/client.ts";
import { sendRaw } from "./support/raw-request.ts";
import { postDataset, postEndpoint } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

/**
 * Errors that say what the server does take: a wrong method on an existing path is a 405 with
 * `Allow`; a body of the wrong type is a 415 naming the type the route expects. Cases are
 * generated from /openapi.json, so a route added later is covered too.
 */
const openapi = (await call("/openapi.json")).body as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
};
const paths = Object.entries(openapi.paths).map(([path, item]) => ({
  path,
  methods: Object.keys(item).map((m) => m.toUpperCase()),
}));
const CANDIDATES = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const jsonOperations = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, op]) => op.requestBody?.content["application/json"])
    .map(([method]) => ({ method: method.toUpperCase(), path })),
);

let tenant: Tenant;
let ids: { dataset: string; endpoint: string };

beforeAll(async () => {
  tenant = await createTenant("method-media");
  const dataset = await postDataset(tenant.key, { name: "d" });
  const endpoint = await postEndpoint(tenant.key, { name: "e", model: "local/echo", prompt: "p" });
  ids = { dataset: dataset.body.id, endpoint: endpoint.body.id };
});

/** The tenant's real ids in `{id}` (auth and ownership pass), a placeholder elsewhere. */
function concrete(path: string): string {
  const id = path.includes("endpoints") ? ids.endpoint : ids.dataset;
  return path.replace("{id}", id).replace(/\{[a-z_-]+\}/g, "some-id");
}
/** A call with the key the path takes: the admin token on /admin, the tenant's key elsewhere. */
function request(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const url = concrete(path);
  return path.startsWith("/admin")
    ? admin(url, { method, ...options })
    : call(url, { method, token: tenant.key, ...options });
}

/** Every method served at a URL: paths overlap (`rows/upsert` is also `rows/{row_id}`). */
function methodsAt(url: string): string[] {
  const methods = new Set<string>();
  for (const { path, methods: served } of paths) {
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (pattern.test(url)) for (const m of served) methods.add(m);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}

describe("a method the path does not serve", () => {
  it("DELETE /api/datasets/{id}/search → 405, Allow: POST", async () => {
    const reply = await request("DELETE", "/api/datasets/{id}/search");
    const error = expectEnvelope(reply, 405, "bad_request");
    expect(reply.headers.get("allow")).toBe("POST");
    expect(error.message).toContain("DELETE");
    expect(error.message).toContain("POST");
  });

  it.each(paths.map((p) => [p.path, p] as const))(
    "%s → 405 with the path's methods in Allow",
    async (_, { path }) => {
      const allowed = methodsAt(concrete(path));
      const wrong = CANDIDATES.find((m) => !allowed.includes(m))!;
      const reply = await request(wrong, path);
      expectEnvelope(reply, 405, "bad_request");
      expect(reply.headers.get("allow")?.split(", ").sort()).toEqual(allowed);
      expect(reply.headers.get("content-security-policy")).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      );
    },
  );

  it("HEAD is served wherever GET is", async () => {
    const reply = await call("/health", { method: "HEAD" });
    expect(reply.status).toBe(200);
  });

  it("an unknown path is still a 404", async () => {
    const reply = await call("/api/no-such-thing", { method: "DELETE", token: tenant.key });
    expectEnvelope(reply, 404, "not_found");
    expect(reply.headers.get("allow")).toBeNull();
  });

  it("the key is checked first: no key is a 401, not a 405", async () => {
    const reply = await call(`/api/datasets/${ids.dataset}/search`, {
      method: "DELETE",
      token: null,
    });
    expectEnvelope(reply, 401, "unauthorized");
  });
});

describe("a JSON route called with another Content-Type", () => {
  it("POST /api/datasets/{id}/search with text/plain → 415 naming application/json", async () => {
    const reply = await call(`/api/datasets/${ids.dataset}/search`, {
      method: "POST",
      token: tenant.key,
      body: JSON.stringify({ query: "x" }),
      headers: { "content-type": "text/plain" },
    });
    const error = expectEnvelope(reply, 415, "unsupported_media_type");
    expect(error.message).toBe(
      'Unsupported Content-Type "text/plain": this endpoint expects Content-Type: application/json',
    );
  });

  it.each(jsonOperations.map((o) => [`${o.method} ${o.path}`, o] as const))(
    "%s → 415 saying it expects application/json",
    async (_, { method, path }) => {
      const reply = await request(method, path, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "query=x",
      });
      const error = expectEnvelope(reply, 415, "unsupported_media_type");
      expect(error.message).toContain("application/x-www-form-urlencoded");
      expect(error.message).toContain("expects Content-Type: application/json");
    },
  );

  it("a body without any Content-Type → 415 saying it expects application/json", async () => {
    const reply = await sendRaw({
      method: "POST",
      path: `/api/datasets/${ids.dataset}/search`,
      headers: { authorization: `Bearer ${tenant.key}` },
      body: JSON.stringify({ query: "x" }),
    });
    expect(reply.status).toBe(415);
    expect((reply.json as { error: { message: string } }).error.message).toBe(
      "Missing Content-Type: this endpoint expects Content-Type: application/json",
    );
  });

  it("the upload route names multipart/form-data", async () => {
    const reply = await call(`/api/datasets/${ids.dataset}/upload`, {
      method: "POST",
      token: tenant.key,
      body: { file: "x" },
    });
    const error = expectEnvelope(reply, 415, "unsupported_media_type");
    expect(error.message).toContain("multipart/form-data");
  });
});
