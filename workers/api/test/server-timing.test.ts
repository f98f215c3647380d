import { beforeAll, describe, expect, it } from "vitest";
import { call, expectEnvelope, type Reply } from "./support/client.ts";
import { postDataset, upsertRows } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

/**
 * Every reply's Server-Timing (docs/api.md#timing): the database's round trips, summed and
 * counted, and the app's own time, on the real stack.
 */
interface Timing {
  db: number;
  roundTrips: number;
  app: number;
}

function timingOf(reply: Reply): Timing {
  const header = reply.headers.get("server-timing");
  expect(header, "Server-Timing").toBeTruthy();
  const metric = (name: string) => {
    const found = header!.match(new RegExp(`(?:^|,\\s*)${name};dur=([0-9.]+)(?:;desc="([^"]*)")?`));
    expect(found, `${name} in ${header}`).not.toBeNull();
    return { dur: Number(found![1]), desc: found![2] ?? "" };
  };
  const db = metric("db");
  const trips = db.desc.match(/^(\d+) round trips?$/);
  expect(trips, `db's description in ${header}`).not.toBeNull();
  return { db: db.dur, roundTrips: Number(trips![1]), app: metric("app").dur };
}

let tenant: Tenant;
let datasetId: string;

beforeAll(async () => {
  tenant = await createTenant("server-timing");
  const dataset = await postDataset(tenant.key, { name: "timed", kind: "hybrid" });
  expect(dataset.status).toBe(201);
  datasetId = dataset.body.id;
});

describe("Server-Timing", () => {
  it("says a route without the database made no round trip, and /health made one", async () => {
    const document = await call("/openapi.json");
    expect(document.status).toBe(200);
    const none = timingOf(document);
    expect(none.roundTrips).toBe(0);
    expect(none.db).toBe(0);
    expect(none.app).toBeGreaterThan(0);

    const health = await call("/health");
    expect(health.status).toBe(200);
    expect(timingOf(health).roundTrips).toBe(1);
  });

  it("counts the statements of a transaction and of a search, within the app's time", async () => {
    const rows = [{ data: { text: "the observatory measured a distant galaxy" } }];
    const created = await upsertRows(tenant.key, datasetId, { document_id: "doc", rows });
    expect(created.status).toBe(200);
    expect(timingOf(created).roundTrips).toBeGreaterThanOrEqual(1);
    // Replacing a document is a transaction: its BEGIN, statements and COMMIT are round trips
    // on its own connection, timed there.
    const replaced = await upsertRows(tenant.key, datasetId, { document_id: "doc", rows });
    expect(replaced.status).toBe(200);
    const write = timingOf(replaced);
    expect(write.roundTrips).toBeGreaterThanOrEqual(3);
    expect(write.db).toBeGreaterThan(0);

    const searched = await call(`/api/datasets/${datasetId}/search`, {
      method: "POST",
      token: tenant.key,
      body: { query: "galaxy", top_k: 3 },
    });
    expect(searched.status).toBe(200);
    expect(searched.body.results.length).toBe(1);
    const search = timingOf(searched);
    expect(search.roundTrips).toBeGreaterThanOrEqual(1);
    expect(search.db).toBeGreaterThan(0);
    // The statements run one after another, so their sum fits in the request's time.
    expect(search.db).toBeLessThanOrEqual(search.app);
  });

  it("is on error replies too", async () => {
    const reply = await call(`/api/datasets/ds_missing/search`, {
      method: "POST",
      token: tenant.key,
      body: { query: "galaxy" },
    });
    expectEnvelope(reply, 404, "not_found");
    expect(timingOf(reply).roundTrips).toBeGreaterThanOrEqual(1);
  });
});
