import { apiKeys } from "@quarry/db";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  AuthCache,
  authenticateApiKey,
  authenticateWithDataset,
  createApiKey,
  createDataset,
  createEndpoint,
  deleteDataset,
  deleteRow,
  isAdminToken,
  requireDataset,
  revokeApiKey,
  UnauthorizedError,
  updateRow,
  upsertRows,
  writeRowsOfDocument,
} from "../src/index.ts";
import { constantTimeEqual } from "../src/shared/crypto.ts";
import { useFreshDatabase } from "./support/database.ts";
import { noFiles } from "./support/no-files.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

describe("API keys", () => {
  it("authenticates a new key to its project", async () => {
    const { ctx, key } = await createTenant(database.db);
    expect(key.key).toMatch(/^qry_[A-Za-z0-9_-]{43}$/);
    const caller = await authenticateApiKey(database.db, key.key);
    expect(caller).toMatchObject({ projectId: ctx.projectId, keyId: key.id, keyName: "test-key" });
  });

  it("stores only a hash of the key", async () => {
    const { key } = await createTenant(database.db);
    const [stored] = await database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
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
    await expect(authenticateApiKey(database.db, given)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("rejects a key once it is revoked, and revoking twice is a 404", async () => {
    const { key } = await createTenant(database.db);
    await revokeApiKey(database.db, key.id);
    await expect(authenticateApiKey(database.db, key.key)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await expect(revokeApiKey(database.db, key.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses keys for unknown projects", async () => {
    await expect(createApiKey(database.db, { projectId: "proj_nope" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("issues distinct keys", async () => {
    const { ctx } = await createTenant(database.db);
    const keys = await Promise.all(
      Array.from({ length: 5 }, () => createApiKey(database.db, { projectId: ctx.projectId })),
    );
    expect(new Set(keys.map((k) => k.key)).size).toBe(5);
  });
});

describe("the isolate's auth cache", () => {
  function clockedCache(ttlMs: number) {
    const clock = { now: 1_000 };
    return { clock, cache: new AuthCache({ ttlMs, now: () => clock.now, maxEntries: 3 }) };
  }

  it("answers a known key without the database until the entry expires", async () => {
    const { ctx, key } = await createTenant(database.db);
    const { clock, cache } = clockedCache(5_000);
    const cached = { cache, endpointFromCache: false, datasetFromCache: false };
    await authenticateWithDataset(database.db, key.key, undefined, undefined, cached);
    // Revoked behind the cache's back, as another isolate would: honoured until expiry.
    await database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, key.id));
    const hit = await authenticateWithDataset(database.db, key.key, undefined, undefined, cached);
    expect(hit.caller).toMatchObject({ projectId: ctx.projectId, keyId: key.id });
    clock.now += 5_000;
    await expect(
      authenticateWithDataset(database.db, key.key, undefined, undefined, cached),
    ).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("forgets a key revoked in this isolate at once, and never caches a failure", async () => {
    const { ctx, key } = await createTenant(database.db);
    const { cache } = clockedCache(60_000);
    const cached = { cache, endpointFromCache: false, datasetFromCache: false };
    await authenticateWithDataset(database.db, key.key, undefined, undefined, cached);
    await revokeApiKey(database.db, key.id);
    cache.forgetKey(key.id);
    await expect(
      authenticateWithDataset(database.db, key.key, undefined, undefined, cached),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const fresh = await createApiKey(database.db, { projectId: ctx.projectId });
    expect(
      (await authenticateWithDataset(database.db, fresh.key, undefined, undefined, cached)).caller
        .keyId,
    ).toBe(fresh.id);
  });

  it("serves a cached endpoint only to a request that may run on one, and never a dataset", async () => {
    const { ctx, key } = await createTenant(database.db);
    const endpoint = await createEndpoint(ctx, { name: "e", model: "local/echo", prompt: "{{q}}" });
    const { cache } = clockedCache(60_000);
    const completion = { cache, endpointFromCache: true, datasetFromCache: false };
    await authenticateWithDataset(database.db, key.key, undefined, endpoint.id, completion);
    await database.db.execute(
      sql`update endpoints set prompt = 'changed {{q}}' where id = ${endpoint.id}`,
    );
    const cachedRun = await authenticateWithDataset(
      database.db,
      key.key,
      undefined,
      endpoint.id,
      completion,
    );
    expect(cachedRun.endpoint?.prompt).toBe("{{q}}");
    const management = await authenticateWithDataset(database.db, key.key, undefined, endpoint.id, {
      cache,
      endpointFromCache: false,
      datasetFromCache: false,
    });
    expect(management.endpoint?.prompt).toBe("changed {{q}}");
    cache.forgetEndpoint(endpoint.id);
    const afterForget = await authenticateWithDataset(
      database.db,
      key.key,
      undefined,
      endpoint.id,
      completion,
    );
    expect(afterForget.endpoint?.prompt).toBe("changed {{q}}");
    // A dataset is always loaded (a missing one is null, not a cache miss turned into a hit).
    const withDataset = await authenticateWithDataset(
      database.db,
      key.key,
      "ds_missing",
      undefined,
      completion,
    );
    expect(withDataset.dataset).toBeNull();
  });

  it("serves a cached dataset only to a search, and forgets one deleted in this isolate", async () => {
    const { ctx, key } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "d" }, { embeddingModel: "local/hash" });
    const { cache } = clockedCache(60_000);
    const search = { cache, endpointFromCache: false, datasetFromCache: true };
    await authenticateWithDataset(database.db, key.key, dataset.id, undefined, search);
    // Measured behind the cache's back, as the ingest worker does.
    await database.db.execute(sql`update datasets set ef_search = 123 where id = ${dataset.id}`);
    const cachedSearch = await authenticateWithDataset(
      database.db,
      key.key,
      dataset.id,
      undefined,
      search,
    );
    expect(cachedSearch.dataset?.efSearch).toBeNull();
    const management = await authenticateWithDataset(database.db, key.key, dataset.id, undefined, {
      cache,
      endpointFromCache: false,
      datasetFromCache: false,
    });
    expect(management.dataset?.efSearch).toBe(123);
    await deleteDataset(ctx, dataset.id, noFiles);
    cache.forgetDataset(dataset.id);
    const afterDelete = await authenticateWithDataset(
      database.db,
      key.key,
      dataset.id,
      undefined,
      search,
    );
    expect(afterDelete.dataset).toBeNull();
  });

  it("does not remember a record read before a change this isolate made", () => {
    const { cache } = clockedCache(60_000);
    const caller = { projectId: "p", keyId: "k", keyName: null, keyEmail: null };
    const readAt = cache.version();
    cache.forgetKey("k"); // the revocation committed while the read was in flight
    cache.rememberCaller("hash", caller, readAt);
    expect(cache.caller("hash")).toBeUndefined();
    cache.rememberCaller("hash", caller, cache.version());
    expect(cache.caller("hash")).toEqual(caller);
  });

  it("keeps at most maxEntries, dropping the least recently stored; ttl 0 keeps nothing", () => {
    const { cache } = clockedCache(60_000);
    const caller = (keyId: string) => ({ projectId: "p", keyId, keyName: null, keyEmail: null });
    for (const id of ["a", "b", "c", "d"]) cache.rememberCaller(id, caller(id), cache.version());
    expect(["a", "b", "c", "d"].map((id) => cache.caller(id)?.keyId)).toEqual([
      undefined,
      "b",
      "c",
      "d",
    ]);
    const off = new AuthCache({ ttlMs: 0 });
    off.rememberCaller("a", caller("a"), off.version());
    expect(off.caller("a")).toBeUndefined();
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

describe("row writes on a cached dataset record", () => {
  // The api isolate lets E8 and E11–E14 run on its cached dataset record: a dataset deleted in
  // another isolate must still be a 404 with nothing written, because each write locks the
  // dataset's row itself (packages/db/CONCURRENCY.md).
  it("writes nothing to a dataset deleted behind the record, and answers 404", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "d" }, { embeddingModel: "local/hash" });
    const written = await upsertRows(ctx, dataset.id, {
      document_id: "doc",
      rows: [{ data: { text: "stored before the delete" } }],
    });
    const rowId = String(written.rows[0]?.id);
    const record = await requireDataset(ctx, dataset.id);
    await deleteDataset(ctx, dataset.id, noFiles);
    const stale = () => ({ ...ctx, loaded: new Map([[`dataset:${dataset.id}`, record]]) });
    const rows = [{ data: { text: "written after the delete" } }];
    const writes = {
      "E11 new document": () => upsertRows(stale(), dataset.id, { rows }),
      "E11 replacement": () => upsertRows(stale(), dataset.id, { document_id: "doc", rows }),
      E12: () => writeRowsOfDocument(stale(), dataset.id, "doc", { rows }, "replace"),
      E13: () => writeRowsOfDocument(stale(), dataset.id, "doc", { rows }, "append"),
      E8: () => updateRow(stale(), dataset.id, rowId, { data: { text: "changed" } }),
      E14: () => deleteRow(stale(), dataset.id, rowId),
    };
    for (const [name, write] of Object.entries(writes)) {
      await expect(write(), name).rejects.toMatchObject({ code: "not_found" });
    }
    const left = await database.db.execute(sql`
      select (select count(*) from rows where dataset_id = ${dataset.id})::int as rows,
             (select count(*) from documents where dataset_id = ${dataset.id})::int as documents`);
    expect((left as unknown as { rows: unknown[] }).rows[0]).toEqual({ rows: 0, documents: 0 });
  });
});
