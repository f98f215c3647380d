import { describe, expect, it } from "vitest";
import { call, expectEnvelope } from "./support/client.ts";
import { postDataset } from "./support/seed.ts";
import { createTenant } from "./support/tenant.ts";

describe("documents API", () => {
  it("lists a new dataset's documents as empty and 404s unknown documents", async () => {
    const { key } = await createTenant();
    const dataset = (await postDataset(key, { name: "d" })).body;
    const listed = await call(`/api/datasets/${dataset.id}/documents`, { token: key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);
    expectEnvelope(
      await call(`/api/datasets/${dataset.id}/documents/nope`, { token: key }),
      404,
      "not_found",
    );
    expectEnvelope(
      await call(`/api/datasets/${dataset.id}/documents/nope`, { method: "DELETE", token: key }),
      404,
      "not_found",
    );
    expectEnvelope(
      await call("/api/datasets/ds_unknown/documents", { token: key }),
      404,
      "not_found",
    );
  });

  it("refuses another project's key on a dataset's documents", async () => {
    const owner = await createTenant("owner");
    const intruder = await createTenant("intruder");
    const dataset = (await postDataset(owner.key, { name: "d" })).body;
    expectEnvelope(
      await call(`/api/datasets/${dataset.id}/documents`, { token: intruder.key }),
      401,
      "unauthorized",
    );
    expectEnvelope(
      await call(`/api/datasets/${dataset.id}/documents/any`, {
        method: "DELETE",
        token: intruder.key,
      }),
      401,
      "unauthorized",
    );
  });
});
