import { beforeAll, describe, expect, inject, it } from "vitest";
import { admin, call, expectEnvelope } from "./support/client.ts";
import { postDataset, postEndpoint } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

/**
 * Auth and envelope cases generated for every operation in /openapi.json, so a route added
 * later is covered without anyone remembering to write these.
 */
interface Operation {
  method: string;
  path: string;
  security: string | null;
  hasBody: boolean;
}

const openapi = (await (await fetch(`${inject("baseUrl")}/openapi.json`)).json()) as {
  paths: Record<string, Record<string, any>>;
};
const operations: Operation[] = Object.entries(
  openapi.paths as Record<string, Record<string, any>>,
).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    security: op.security?.[0] ? Object.keys(op.security[0])[0]! : null,
    hasBody: Boolean(op.requestBody?.content?.["application/json"]),
  })),
);
const secured = operations.filter((o) => o.security !== null);
const projectRoutes = secured.filter((o) => o.security === "apiKey");
const label = (o: Operation) => `${o.method} ${o.path}`;

let tenant: Tenant;
let revoked: Tenant;
let other: Tenant;
let ids: Record<string, string>;

beforeAll(async () => {
  tenant = await createTenant("common");
  other = await createTenant("common-other");
  revoked = await createTenant("common-revoked");
  await admin(`/admin/keys/${revoked.keyId}`, { method: "DELETE" });
  const dataset = (await postDataset(tenant.key, { name: "d" })).body;
  const endpoint = (await postEndpoint(tenant.key, { name: "e", model: "local/echo", prompt: "p" }))
    .body;
  ids = { dataset: dataset.id, endpoint: endpoint.id };
});

/** Fills path parameters with the tenant's real ids, so only the key decides the answer. */
function concrete(op: Operation): string {
  const idFor =
    op.path.startsWith("/api/endpoints") || op.path.startsWith("/endpoints")
      ? ids.endpoint
      : ids.dataset;
  return op.path.replace("{id}", idFor!).replace(/\{[a-z_-]+\}/g, "some-id");
}

describe("every secured operation", () => {
  it("was discovered from the OpenAPI document", () => {
    expect(secured.length).toBeGreaterThanOrEqual(15);
  });

  it.each(secured.map((o) => [label(o), o] as const))(
    "%s: no key → 401 envelope",
    async (_, op) => {
      expectEnvelope(
        await call(concrete(op), {
          method: op.method,
          body: op.hasBody ? {} : undefined,
          token: null,
        }),
        401,
        "unauthorized",
      );
    },
  );

  it.each(secured.map((o) => [label(o), o] as const))(
    "%s: malformed key → 401 envelope",
    async (_, op) => {
      for (const header of [
        "Bearer",
        "Basic abc",
        "Bearer qry_short",
        `Bearer qry_${"x".repeat(43)}`,
      ]) {
        const reply = await call(concrete(op), {
          method: op.method,
          body: op.hasBody ? {} : undefined,
          headers: { authorization: header },
        });
        expectEnvelope(reply, 401, "unauthorized");
      }
    },
  );

  it.each(secured.map((o) => [label(o), o] as const))(
    "%s: revoked key → 401 envelope",
    async (_, op) => {
      expectEnvelope(
        await call(concrete(op), {
          method: op.method,
          body: op.hasBody ? {} : undefined,
          token: revoked.key,
        }),
        401,
        "unauthorized",
      );
    },
  );
});

describe("every project operation on a resource of another project", () => {
  const scoped = projectRoutes.filter((o) => o.path.includes("{id}"));
  it.each(scoped.map((o) => [label(o), o] as const))(
    "%s → 401, before validating the body",
    async (_, op) => {
      expectEnvelope(
        await call(concrete(op), {
          method: op.method,
          body: op.hasBody ? {} : undefined,
          token: other.key,
        }),
        401,
        "unauthorized",
      );
    },
  );
});

describe("admin operations", () => {
  const adminRoutes = secured.filter((o) => o.security === "adminToken");
  it.each(adminRoutes.map((o) => [label(o), o] as const))(
    "%s refuses a project key",
    async (_, op) => {
      expectEnvelope(
        await call(concrete(op), {
          method: op.method,
          body: op.hasBody ? {} : undefined,
          token: tenant.key,
        }),
        401,
        "unauthorized",
      );
    },
  );
});

describe("operations with a JSON body", () => {
  const withBody = projectRoutes.filter((o) => o.hasBody);
  it.each(withBody.map((o) => [label(o), o] as const))(
    "%s: malformed JSON → 400 envelope",
    async (_, op) => {
      expectEnvelope(
        await call(concrete(op), {
          method: op.method,
          body: "{not json",
          token: tenant.key,
          headers: { "content-type": "application/json" },
        }),
        400,
        "bad_request",
      );
    },
  );
  it.each(withBody.map((o) => [label(o), o] as const))(
    "%s: a non-object body → 400 envelope",
    async (_, op) => {
      expectEnvelope(
        await call(concrete(op), {
          method: op.method,
          body: "[1,2]",
          token: tenant.key,
          headers: { "content-type": "application/json" },
        }),
        400,
        "bad_request",
      );
    },
  );
  it.each(withBody.map((o) => [label(o), o] as const))(
    "%s: no body at all → 400 envelope",
    async (_, op) => {
      expectEnvelope(
        await call(concrete(op), { method: op.method, token: tenant.key }),
        400,
        "bad_request",
      );
    },
  );
});

describe("response headers", () => {
  const LOCKED = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  };

  it("lock down JSON replies, errors included, and keep tenants' data out of caches", async () => {
    const replies = [
      await call("/health"),
      await call("/api/datasets", { token: tenant.key }),
      await call(`/api/datasets/${ids.dataset}`, { token: tenant.key }),
      await call("/api/datasets", { token: null }),
      await call("/no/such/route"),
      await postDataset(tenant.key, "{not json"),
    ];
    for (const reply of replies) {
      const seen = Object.fromEntries(Object.keys(LOCKED).map((h) => [h, reply.headers.get(h)]));
      expect(seen, `${reply.status} ${reply.text.slice(0, 80)}`).toEqual(LOCKED);
      expect(reply.headers.get("cache-control")).toBe("no-store");
      expect(reply.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}/);
    }
  });

  it("let the API reference page load its renderer from this origin only", async () => {
    const docs = await call("/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/);
    expect(docs.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect(docs.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
