import { describe, expect, it } from "vitest";
import { call, expectEnvelope } from "./support/client.ts";
import { postDataset, postEndpoint } from "./support/seed.ts";
import { createTenant } from "./support/tenant.ts";

describe("endpoints API", () => {
  it("creates, updates as new deployments, lists, gets and deletes", async () => {
    const { key } = await createTenant();
    const dataset = (await postDataset(key, { name: "kb" })).body;
    const created = await postEndpoint(key, {
      name: "qa",
      model: "local/echo",
      messages: [
        { role: "system", content: "Use: {{context}}" },
        { role: "user", content: "{{question}}" },
      ],
      temperature: 0.3,
      search: [{ dataset_id: dataset.id, variable: "context", query: "{{question}}", top_k: 4 }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^ep_/),
      type: "chat",
      deployment_id: 1,
      variables: ["question"],
      temperature: 0.3,
    });
    const id = created.body.id;

    const updated = await call(`/api/endpoints/${id}`, {
      method: "PATCH",
      token: key,
      body: { prompt: "Q: {{question}} C: {{context}}" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ deployment_id: 2, type: "completion", messages: null });
    const renamed = await call(`/api/endpoints/${id}`, {
      method: "PATCH",
      token: key,
      body: { name: "qa2" },
    });
    expect(renamed.body).toMatchObject({ deployment_id: 3, name: "qa2" });

    expect((await call(`/api/endpoints/${id}`, { token: key })).body).toEqual(renamed.body);
    expect((await call("/api/endpoints", { token: key })).body).toEqual([renamed.body]);
    expect((await call(`/api/endpoints/${id}`, { method: "DELETE", token: key })).status).toBe(204);
    expectEnvelope(await call(`/api/endpoints/${id}`, { token: key }), 404, "not_found");
  });

  it.each([
    [{ name: "e", model: "local/echo" }, "prompt"],
    [{ name: "e", model: "bogus", prompt: "x" }, "model"],
    [{ name: "e", model: "local/echo", prompt: "x", temperature: 3 }, "temperature"],
    [
      { name: "e", model: "local/echo", messages: [{ role: "robot", content: "x" }] },
      "messages[0].role",
    ],
    [
      {
        name: "e",
        model: "local/echo",
        prompt: "{{c}}",
        search: [{ dataset_id: "ds_nope", variable: "c", query: "q" }],
      },
      "search[0].dataset_id",
    ],
    [
      {
        name: "e",
        model: "local/echo",
        prompt: "{{c}}",
        search: [{ dataset_id: "d", variable: "c", query: "q", alpha: 2 }],
      },
      "search[0].alpha",
    ],
  ])("rejects %j naming %s", async (body, field) => {
    const { key } = await createTenant();
    const error = expectEnvelope(await postEndpoint(key, body), 400, "bad_request");
    expect(error.message).toContain(field);
    expect((await call("/api/endpoints", { token: key })).body).toEqual([]);
  });

  it("rejects an empty update and leaves the endpoint as it was", async () => {
    const { key } = await createTenant();
    const created = (await postEndpoint(key, { name: "e", model: "local/echo", prompt: "p" })).body;
    expectEnvelope(
      await call(`/api/endpoints/${created.id}`, { method: "PATCH", token: key, body: {} }),
      400,
      "bad_request",
    );
    expectEnvelope(
      await call(`/api/endpoints/${created.id}`, {
        method: "PATCH",
        token: key,
        body: { model: "nope" },
      }),
      400,
      "bad_request",
    );
    expect((await call(`/api/endpoints/${created.id}`, { token: key })).body).toEqual(created);
  });

  it("keeps projects apart", async () => {
    const owner = await createTenant("owner");
    const intruder = await createTenant("intruder");
    const endpoint = (
      await postEndpoint(owner.key, { name: "e", model: "local/echo", prompt: "p" })
    ).body;
    for (const [method, body] of [["GET"], ["PATCH", { prompt: "x" }], ["DELETE"]] as const) {
      expectEnvelope(
        await call(`/api/endpoints/${endpoint.id}`, { method, body, token: intruder.key }),
        401,
        "unauthorized",
      );
    }
    expect((await call(`/api/endpoints/${endpoint.id}`, { token: owner.key })).body).toEqual(
      endpoint,
    );
  });
});
