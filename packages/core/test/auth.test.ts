import type { Database } from "@quarry/db";
import { apiKeys } from "@quarry/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  authenticateApiKey,
  createApiKey,
  isAdminToken,
  revokeApiKey,
  UnauthorizedError,
} from "../src/index.ts";
import { constantTimeEqual } from "../src/shared/crypto.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

let db: Database;
useFreshDatabase((fresh) => {
  db = fresh;
});

describe("API keys", () => {
  it("authenticates a new key to its project", async () => {
    const { ctx, key } = await createTenant(db);
    expect(key.key).toMatch(/^qry_[A-Za-z0-9_-]{43}$/);
    const caller = await authenticateApiKey(db, key.key);
    expect(caller).toMatchObject({ projectId: ctx.projectId, keyId: key.id, keyName: "test-key" });
  });

  it("stores only a hash of the key", async () => {
    const { key } = await createTenant(db);
    const [stored] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(stored?.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(key.key.slice(4));
    expect(stored?.prefix).toBe(key.key.slice(0, 10));
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["malformed", "not-a-key"],
    ["wrong prefix", `abc_${"a".repeat(43)}`],
    ["unknown", `qry_${"a".repeat(43)}`],
  ])("rejects a %s key", async (_, given) => {
    await expect(authenticateApiKey(db, given)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("rejects a key once it is revoked, and revoking twice is a 404", async () => {
    const { key } = await createTenant(db);
    await revokeApiKey(db, key.id);
    await expect(authenticateApiKey(db, key.key)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(revokeApiKey(db, key.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses keys for unknown projects", async () => {
    await expect(createApiKey(db, { projectId: "proj_nope" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("issues distinct keys", async () => {
    const { ctx } = await createTenant(db);
    const keys = await Promise.all(
      Array.from({ length: 5 }, () => createApiKey(db, { projectId: ctx.projectId })),
    );
    expect(new Set(keys.map((k) => k.key)).size).toBe(5);
  });
});

describe("admin token and comparison", () => {
  it("accepts only the exact admin token", async () => {
    expect(await isAdminToken("s3cret-admin-token", "s3cret-admin-token")).toBe(true);
    expect(await isAdminToken("s3cret-admin-token", "s3cret-admin-tokeN")).toBe(false);
    expect(await isAdminToken("s3cret-admin-token", undefined)).toBe(false);
    expect(await isAdminToken("s3cret-admin-token", "")).toBe(false);
  });

  it("compares strings exactly", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
  });
});
