import OpenAI from "openai";
import { VERSION as OPENAI_CLIENT_VERSION } from "openai/version";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, baseUrl, call, expectEnvelope, getWithBody } from "./support/client.ts";
import { FAKE_REPLY } from "./support/fake-openai-server.ts";
import { postDataset, postEndpoint, upsertRows } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant("completions");
});

async function endpoint(body: Record<string, unknown>, key = tenant.key): Promise<string> {
  const created = await postEndpoint(key, { name: "e", ...body });
  if (created.status !== 201) throw new Error(`create endpoint: ${created.text}`);
  return created.body.id;
}

function complete(id: string, body: unknown, token: string | null = tenant.key) {
  return call(`/api/endpoints/${id}/completions`, { method: "POST", token, body });
}

/** The endpoint's logs (E7, newest first). */
async function logsOf(id: string) {
  const reply = await getWithBody(`/endpoints/${id}/logs`, {}, tenant.key);
  expect(reply.status).toBe(200);
  return reply.body as Record<string, any>[];
}

describe("E4 completions (JSON)", () => {
  it("answers SPEC's Completion response and logs it under choices[].usage_id", async () => {
    const id = await endpoint({ model: "local/echo", prompt: "Explain {{topic}} briefly." });
    const reply = await complete(id, { values: { topic: "tides" }, prompt: [] });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toContain("application/json");
    expect(reply.headers.get("x-request-id")).toBeTruthy();
    expect(Object.keys(reply.body).sort()).toEqual(
      [
        "choices",
        "completion_cost",
        "created",
        "id",
        "model",
        "object",
        "prompt_cost",
        "service_model_name",
        "usage",
      ].sort(),
    );
    expect(reply.body).toMatchObject({
      object: "text_completion",
      model: "echo",
      service_model_name: "local/echo",
      prompt_cost: 0,
      completion_cost: 0,
      usage: { prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 },
    });
    const [choice] = reply.body.choices;
    expect(choice).toEqual({
      text: "Explain tides briefly.",
      index: 0,
      logprobs: null,
      finish_reason: "stop",
      usage_id: expect.any(String),
    });
    const [log] = await logsOf(id);
    expect(log).toMatchObject({
      id: choice.usage_id,
      endpoint_id: id,
      completion: "Explain tides briefly.",
      status: JSON.stringify({ status: 200 }),
      user_id: tenant.keyId,
    });
  });

  it("calls an OpenAI-compatible server with the rendered messages, the history and user", async () => {
    const id = await endpoint({
      model: "openai/inspect",
      messages: [
        { role: "system", content: "Answer about {{topic}}." },
        { role: "user", content: "Start." },
      ],
      temperature: 0.5,
      max_tokens: 64,
    });
    const reply = await complete(id, {
      values: { topic: "tides" },
      messages: [
        { role: "assistant", content: "Ready." },
        { role: "user", content: "Why two a day?" },
      ],
      user: "user-42",
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.choices[0].text)).toEqual({
      messages: [
        { role: "system", content: "Answer about tides." },
        { role: "user", content: "Start." },
        { role: "assistant", content: "Ready." },
        { role: "user", content: "Why two a day?" },
      ],
      user: "user-42",
      temperature: 0.5,
      max_tokens: 64,
      stream: false,
    });
    expect(reply.body.model).toBe("inspect");
    const [log] = await logsOf(id);
    expect(log?.user_id).toBe("user-42");
  });

  it("prices tokens from the model price table", async () => {
    const id = await endpoint({ model: "openai/gpt-4o-mini", prompt: "Say hi" });
    const reply = await complete(id, { prompt: "now" });
    expect(reply.status).toBe(200);
    expect(reply.body.choices[0].text).toBe(FAKE_REPLY);
    const { prompt_tokens, completion_tokens } = reply.body.usage;
    expect(reply.body.prompt_cost).toBeCloseTo((prompt_tokens * 0.15) / 1e6, 12);
    expect(reply.body.completion_cost).toBeCloseTo((completion_tokens * 0.6) / 1e6, 12);
    expect(reply.body.completion_cost).toBeGreaterThan(0);
  });

  it("fills search variables and returns search_results with variable, image_paths, last_accessed", async () => {
    const dataset = await postDataset(tenant.key, { name: "kb" });
    await upsertRows(tenant.key, dataset.body.id, {
      document_id: "tides",
      rows: [
        { data: { text: "Tides are caused by the moon." } },
        { data: { text: "Sourdough needs a starter." } },
      ],
    });
    const id = await endpoint({
      model: "local/echo",
      prompt: "{{context}}\nQ: {{question}}",
      search: [
        { dataset_id: dataset.body.id, variable: "context", query: "{{question}}", top_k: 1 },
      ],
    });
    const reply = await complete(id, { values: { question: "what causes tides" }, prompt: [] });
    expect(reply.status).toBe(200);
    expect(reply.body.search_results).toEqual([
      {
        embedding: "Tides are caused by the moon.",
        data: { text: "Tides are caused by the moon." },
        confidence: expect.any(Number),
        query: "what causes tides",
        metadata: expect.objectContaining({ documentId: "tides" }),
        image_paths: null,
        variable: "context",
        last_accessed: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    ]);
    expect(reply.body.choices[0].text).toBe("Tides are caused by the moon.\nQ: what causes tides");
    const [log] = await logsOf(id);
    expect(JSON.parse(log?.search_results)).toEqual(reply.body.search_results);
  });

  it("serves /chat/completions with the chat format for OpenAI chat clients", async () => {
    const id = await endpoint({
      model: "local/echo",
      messages: [{ role: "system", content: "S" }],
    });
    const reply = await call(`/api/endpoints/${id}/chat/completions`, {
      method: "POST",
      token: tenant.key,
      body: { model: "ignored", messages: [{ role: "user", content: "Q" }] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.object).toBe("chat.completion");
    expect(reply.body.choices[0]).toMatchObject({
      text: "system: S\nuser: Q",
      message: { role: "assistant", content: "system: S\nuser: Q" },
      usage_id: expect.any(String),
    });
  });

  it("works with the official openai client (completions and chat, not streamed)", async () => {
    // the major users install today; it declares Node >= 22, and these calls are proven on
    // the Node 20 this repo also supports
    expect(OPENAI_CLIENT_VERSION).toMatch(/^7\./);
    const id = await endpoint({ model: "openai/reply", prompt: "Hello" });
    const client = new OpenAI({ apiKey: tenant.key, baseURL: `${baseUrl()}/api/endpoints/${id}` });
    const completion = await client.completions.create({ model: "any", prompt: "there" });
    expect(completion.choices[0]?.text).toBe(FAKE_REPLY);
    const chat = await client.chat.completions.create({
      model: "any",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(chat.choices[0]?.message.content).toBe(FAKE_REPLY);
  });
});

describe("E4 errors", () => {
  it("names every missing variable (400) and logs nothing", async () => {
    const id = await endpoint({ model: "local/echo", prompt: "{{a}} and {{b}} and {{c}}" });
    const reply = await complete(id, { values: { b: "2" }, prompt: [] });
    const error = expectEnvelope(reply, 400, "bad_request");
    expect(error.message).toBe("values: missing variables a, c");
    expect(await logsOf(id)).toEqual([]);
  });

  it.each([
    [{ values: {} }, "one of prompt or messages is required"],
    [{ prompt: [3] }, "prompt"],
    [{ messages: [{ role: "robot", content: "x" }] }, "messages[0].role"],
    [{ prompt: "x", stream: "yes" }, "stream"],
  ])("rejects %j (400)", async (body, expected) => {
    const id = await endpoint({ model: "local/echo", prompt: "p" });
    const error = expectEnvelope(await complete(id, body), 400, "bad_request");
    expect(error.message).toContain(expected);
  });

  it("accepts unknown OpenAI fields", async () => {
    const id = await endpoint({ model: "local/echo", prompt: "p" });
    const reply = await complete(id, {
      prompt: "q",
      model: "gpt-x",
      stop: ["\n\n"],
      stream_options: { include_usage: true },
      n: 1,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.choices[0].text).toBe("p\nq");
  });

  it("is a 401 without a valid key or for another project's endpoint, 404 for an unknown one", async () => {
    const id = await endpoint({ model: "local/echo", prompt: "p" });
    expectEnvelope(await complete(id, { prompt: "x" }, null), 401, "unauthorized");
    expectEnvelope(await complete(id, { prompt: "x" }, "qry_not-a-key"), 401, "unauthorized");
    const other = await createTenant("completions-other");
    expectEnvelope(await complete(id, { prompt: "x" }, other.key), 401, "unauthorized");
    expectEnvelope(await complete("ep_unknown", { prompt: "x" }), 404, "not_found");
  });

  it.each([500, 429])("turns an upstream %i into a 502 upstream_error, logged", async (status) => {
    const id = await endpoint({ model: `openai/fail:${status}`, prompt: "p" });
    const reply = await complete(id, { prompt: [] });
    const error = expectEnvelope(reply, 502, "upstream_error");
    expect(error.message).toContain(`status ${status}`);
    const [log] = await logsOf(id);
    expect(JSON.parse(log?.status)).toMatchObject({ status: 502 });
    expect(JSON.parse(log?.status).error).toContain(`status ${status}`);
  });
});

describe("E4 with the isolate's auth cache (AUTH_CACHE_SECONDS)", () => {
  // The local stack runs one api isolate, so each change below goes through the isolate that
  // cached the key or endpoint: it must take effect on the very next completion.
  const echoed = (reply: Awaited<ReturnType<typeof complete>>) => reply.body.choices[0].text;

  it("runs the endpoint as changed, at once, after a PATCH", async () => {
    const id = await endpoint({ model: "local/echo", prompt: "first {{q}}" });
    expect(echoed(await complete(id, { values: { q: "x" }, prompt: [] }))).toContain("first x");
    const patched = await call(`/api/endpoints/${id}`, {
      method: "PATCH",
      token: tenant.key,
      body: { prompt: "second {{q}}" },
    });
    expect(patched.status).toBe(200);
    expect(echoed(await complete(id, { values: { q: "x" }, prompt: [] }))).toContain("second x");
  });

  it("answers 404 at once for an endpoint deleted after it was cached", async () => {
    const id = await endpoint({ model: "local/echo", prompt: "{{q}}" });
    expect((await complete(id, { values: { q: "x" }, prompt: [] })).status).toBe(200);
    const deleted = await call(`/api/endpoints/${id}`, { method: "DELETE", token: tenant.key });
    expect(deleted.status).toBe(204);
    expectEnvelope(await complete(id, { values: { q: "x" }, prompt: [] }), 404, "not_found");
  });

  it("refuses a key at once after it is revoked, though a completion just cached it", async () => {
    const own = await createTenant("cache-revoke");
    const id = await endpoint({ model: "local/echo", prompt: "{{q}}" }, own.key);
    expect((await complete(id, { values: { q: "x" }, prompt: [] }, own.key)).status).toBe(200);
    expect((await admin(`/admin/keys/${own.keyId}`, { method: "DELETE" })).status).toBe(204);
    expectEnvelope(
      await complete(id, { values: { q: "x" }, prompt: [] }, own.key),
      401,
      "unauthorized",
    );
  });
});
