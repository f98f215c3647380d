import { describe, expect, it } from "vitest";
import { admin, call, expectEnvelope } from "./support/client.ts";
import { createTenant } from "./support/tenant.ts";

describe("admin API", () => {
  it("creates a project and a key that works at once", async () => {
    const project = await admin("/admin/projects", { method: "POST", body: { name: "acme" } });
    expect(project.status).toBe(201);
    expect(project.body).toEqual({
      id: expect.stringMatching(/^proj_/),
      name: "acme",
      created_at: expect.any(String),
    });

    const key = await admin(`/admin/projects/${project.body.id}/keys`, {
      method: "POST",
      body: { name: "ci" },
    });
    expect(key.status).toBe(201);
    expect(key.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: "ci",
      project_id: project.body.id,
    });
    expect(key.body.key).toMatch(/^qry_[A-Za-z0-9_-]{43}$/);

    const listed = await call("/api/datasets", { token: key.body.key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);
  });

  it("accepts a key request without a name", async () => {
    const project = await admin("/admin/projects", { method: "POST", body: { name: "p" } });
    const key = await admin(`/admin/projects/${project.body.id}/keys`, {
      method: "POST",
      body: {},
    });
    expect(key.status).toBe(201);
    expect(key.body.name).toBeNull();
  });

  it("revokes a key immediately; revoking again is a 404", async () => {
    const tenant = await createTenant("revoke");
    expect((await call("/api/datasets", { token: tenant.key })).status).toBe(200);
    const revoked = await admin(`/admin/keys/${tenant.keyId}`, { method: "DELETE" });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe("");
    expectEnvelope(await call("/api/datasets", { token: tenant.key }), 401, "unauthorized");
    expectEnvelope(
      await admin(`/admin/keys/${tenant.keyId}`, { method: "DELETE" }),
      404,
      "not_found",
    );
  });

  it("answers 404 for keys of an unknown project", async () => {
    expectEnvelope(
      await admin("/admin/projects/proj_missing/keys", { method: "POST", body: {} }),
      404,
      "not_found",
    );
  });

  it.each([
    ["no body", undefined, "name"],
    ["missing name", {}, "name"],
    ["empty name", { name: "  " }, "name"],
    ["wrong type", { name: 42 }, "name"],
    ["unknown field", { name: "x", owner: "me" }, "owner"],
  ])("rejects %s with a 400 naming the field", async (_, body, field) => {
    const reply = await admin("/admin/projects", { method: "POST", body });
    const error = expectEnvelope(reply, 400, "bad_request");
    expect(error.message).toContain(field);
  });

  it("refuses project keys and wrong tokens on admin routes", async () => {
    const tenant = await createTenant("not-admin");
    for (const token of [tenant.key, "wrong-admin-token", null]) {
      expectEnvelope(
        await call("/admin/projects", { method: "POST", body: { name: "x" }, token }),
        401,
        "unauthorized",
      );
    }
  });
});
