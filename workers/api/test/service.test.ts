import { describe, expect, it } from "vitest";
import { baseUrl, call, expectEnvelope } from "./support/client.ts";
import { postDataset } from "./support/seed.ts";
import { createTenant } from "./support/tenant.ts";

describe("service routes", () => {
  it("answers /health once the database is reachable", async () => {
    const reply = await call("/health");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: "ok" });
    expect(reply.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("keeps a well-formed client request id and replaces a hostile one", async () => {
    const kept = await call("/health", { headers: { "x-request-id": "trace-12345678" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-12345678");
    const replaced = await call("/health", {
      headers: { "x-request-id": "<script>alert(1)</script>" },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("answers unknown routes with a 404 envelope", async () => {
    expectEnvelope(await call("/nope"), 404, "not_found");
    const { key } = await createTenant();
    expectEnvelope(await call("/api/nothing-here", { token: key }), 404, "not_found");
  });

  it("publishes an OpenAPI 3.1 document of the built routes only", async () => {
    const reply = await call("/openapi.json");
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe("3.1.0");
    const paths = Object.keys(reply.body.paths).sort();
    expect(paths).toEqual(
      [
        "/admin/keys/{key_id}",
        "/admin/projects",
        "/admin/projects/{id}/keys",
        "/api/datasets",
        "/api/datasets/{id}",
        "/api/datasets/{id}/document-filtered-search",
        "/api/datasets/{id}/documents",
        "/api/datasets/{id}/documents/{document_id}",
        "/api/datasets/{id}/documents/{document_id}/file",
        "/api/datasets/{id}/documents/{document_id}/rows",
        "/api/datasets/{id}/rows",
        "/api/datasets/{id}/rows/upsert",
        "/api/datasets/{id}/rows/{row_id}",
        "/api/datasets/{id}/search",
        "/api/datasets/{id}/search-documents",
        "/api/datasets/{id}/upload",
        "/api/endpoints",
        "/api/endpoints/{id}",
        "/api/endpoints/{id}/chat/completions",
        "/api/endpoints/{id}/completions",
        "/endpoints/{id}/logs",
        "/endpoints/{id}/logs/export",
        "/endpoints/{id}/logs/{log_id}/comments",
        "/health",
      ].sort(),
    );
    expect(reply.body.components.schemas.Error).toBeDefined();
    expect(reply.body.components.securitySchemes.apiKey).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    for (const item of Object.values(reply.body.paths) as Record<string, any>[]) {
      for (const op of Object.values(item)) {
        if (op.security) expect(op.responses["401"]).toBeDefined();
      }
    }
  });

  it("serves an interactive reference at /docs", async () => {
    const res = await fetch(`${baseUrl()}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("/openapi.json");
  });
});

describe("parallel load", () => {
  it("serves 200 authenticated requests from 16 concurrent clients without an error", async () => {
    const { key } = await createTenant("parallel");
    const dataset = (await postDataset(key, { name: "p" })).body;
    const paths = [
      "/api/datasets",
      `/api/datasets/${dataset.id}`,
      `/api/datasets/${dataset.id}/documents`,
      "/api/endpoints",
    ];
    let next = 0;
    const statuses: number[] = [];
    const client = async () => {
      while (next < 200) {
        const i = next++;
        const reply = await call(paths[i % paths.length]!, { token: key });
        statuses.push(reply.status);
      }
    };
    await Promise.all(Array.from({ length: 16 }, client));
    expect(statuses).toHaveLength(200);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
