import { endpointDeployments } from "@quarry/db";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  CreateEndpointInput,
  createDataset,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  type ProjectContext,
  parseInput,
  UpdateEndpointInput,
  updateEndpoint,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

const page = { offset: 0, pageSize: 100 };

/** A body from outside, validated as the edge validates it, then applied. */
async function createUntrusted(ctx: ProjectContext, body: unknown) {
  return createEndpoint(ctx, parseInput(CreateEndpointInput, body));
}
async function updateUntrusted(ctx: ProjectContext, id: string, body: unknown) {
  return updateEndpoint(ctx, id, parseInput(UpdateEndpointInput, body));
}

describe("endpoints", () => {
  it("creates a completion endpoint at deployment 1 with its caller variables", async () => {
    const { ctx } = await createTenant(database.db);
    const endpoint = await createEndpoint(ctx, {
      name: "summary",
      model: "local/echo",
      prompt: "Summarise {{topic}} for {{ audience }}",
    });
    expect(endpoint).toMatchObject({
      type: "completion",
      prompt: "Summarise {{topic}} for {{ audience }}",
      messages: null,
      deployment_id: 1,
      variables: ["topic", "audience"],
      search: [],
    });
    expect(endpoint.id).toMatch(/^ep_/);
  });

  it("creates a chat endpoint whose search block fills a variable", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "kb" }, { embeddingModel: "local/hash" });
    const endpoint = await createEndpoint(ctx, {
      name: "qa",
      model: "local/echo",
      messages: [
        { role: "system", content: "Answer from: {{context}}" },
        { role: "user", content: "{{question}}" },
      ],
      search: [{ dataset_id: dataset.id, variable: "context", query: "{{question}}", top_k: 5 }],
    });
    expect(endpoint.type).toBe("chat");
    expect(endpoint.variables).toEqual(["question"]);
  });

  it.each([
    [{ model: "local/echo" }, "prompt"],
    [
      { model: "local/echo", prompt: "a", messages: [{ role: "user" as const, content: "b" }] },
      "prompt",
    ],
    [{ model: "acme/gpt", prompt: "a" }, "model"],
    [
      {
        model: "local/echo",
        prompt: "no var",
        search: [{ dataset_id: "ds_x", variable: "ctx", query: "q" }],
      },
      "search[0].variable",
    ],
    [
      {
        model: "local/echo",
        prompt: "{{ctx}}",
        search: [{ dataset_id: "ds_missing", variable: "ctx", query: "q" }],
      },
      "search[0].dataset_id",
    ],
    [
      {
        model: "local/echo",
        prompt: "{{ctx}}",
        // checked when deployed, not at the first completion
        search: [{ dataset_id: "ds_x", variable: "ctx", query: "q", filter: { year: [2020] } }],
      },
      "search[0].filter.year",
    ],
  ])("rejects invalid settings %#, naming %s", async (settings, path) => {
    const { ctx } = await createTenant(database.db);
    await expect(createUntrusted(ctx, { name: "bad", ...settings })).rejects.toMatchObject({
      code: "bad_request",
      path,
    });
    expect(await listEndpoints(ctx, page)).toEqual([]);
  });

  it("refuses a search block over another project's dataset", async () => {
    const a = await createTenant(database.db, "a");
    const b = await createTenant(database.db, "b");
    const foreign = await createDataset(
      b.ctx,
      { name: "theirs" },
      { embeddingModel: "local/hash" },
    );
    await expect(
      createEndpoint(a.ctx, {
        name: "sneaky",
        model: "local/echo",
        prompt: "{{ctx}}",
        search: [{ dataset_id: foreign.id, variable: "ctx", query: "q" }],
      }),
    ).rejects.toMatchObject({ code: "bad_request", path: "search[0].dataset_id" });
  });

  it("makes every update a new deployment and freezes each config", async () => {
    const { ctx } = await createTenant(database.db);
    const created = await createEndpoint(ctx, {
      name: "e",
      model: "local/echo",
      prompt: "v1 {{x}}",
    });
    const second = await updateEndpoint(ctx, created.id, { prompt: "v2 {{y}}", temperature: 0.2 });
    expect(second).toMatchObject({
      deployment_id: 2,
      prompt: "v2 {{y}}",
      temperature: 0.2,
      variables: ["y"],
    });
    const third = await updateEndpoint(ctx, created.id, {
      messages: [{ role: "user", content: "chat {{z}}" }],
    });
    expect(third).toMatchObject({ deployment_id: 3, type: "chat", prompt: null, temperature: 0.2 });
    const deployments = await database.db
      .select()
      .from(endpointDeployments)
      .where(eq(endpointDeployments.endpointId, created.id))
      .orderBy(asc(endpointDeployments.deploymentId));
    expect(deployments.map((d) => [d.deploymentId, d.config.prompt, d.config.type])).toEqual([
      [1, "v1 {{x}}", "completion"],
      [2, "v2 {{y}}", "completion"],
      [3, null, "chat"],
    ]);
  });

  it("leaves the endpoint unchanged when an update is invalid", async () => {
    const { ctx } = await createTenant(database.db);
    const created = await createEndpoint(ctx, { name: "e", model: "local/echo", prompt: "p" });
    await expect(updateUntrusted(ctx, created.id, { model: "bogus" })).rejects.toMatchObject({
      code: "bad_request",
    });
    expect(await getEndpoint(ctx, created.id)).toEqual(created);
  });

  it("scopes get, update and delete to the project (401 other project, 404 unknown)", async () => {
    const a = await createTenant(database.db, "a");
    const b = await createTenant(database.db, "b");
    const endpoint = await createEndpoint(a.ctx, { name: "e", model: "local/echo", prompt: "p" });
    await expect(getEndpoint(b.ctx, endpoint.id)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(updateEndpoint(b.ctx, endpoint.id, { prompt: "hacked" })).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(deleteEndpoint(b.ctx, endpoint.id)).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(getEndpoint(a.ctx, "ep_unknown")).rejects.toMatchObject({ code: "not_found" });
    expect(await listEndpoints(b.ctx, page)).toEqual([]);
    await deleteEndpoint(a.ctx, endpoint.id);
    await expect(getEndpoint(a.ctx, endpoint.id)).rejects.toMatchObject({ code: "not_found" });
  });
});
