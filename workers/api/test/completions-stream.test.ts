import OpenAI from "openai";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl, expectEnvelope, getWithBody } from "./support/client.ts";
import { FAKE_CREATED, FAKE_REPLY, type FakeRequest } from "./support/fake-openai-server.ts";
import { postDataset, postEndpoint, upsertRows } from "./support/seed.ts";
import { postSse } from "./support/sse.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant("stream");
});

async function endpoint(body: Record<string, unknown>): Promise<string> {
  const created = await postEndpoint(tenant.key, { name: "s", ...body });
  if (created.status !== 201) throw new Error(`create endpoint: ${created.text}`);
  return created.body.id;
}

/** A `local/echo` endpoint whose `{{context}}` is searched (by `query`) in a new one-row dataset. */
async function echoEndpointOverRow(
  dataset: string,
  text: string,
  query: string,
  prompt: string,
): Promise<string> {
  const created = await postDataset(tenant.key, { name: dataset });
  await upsertRows(tenant.key, created.body.id, { rows: [{ data: { text } }] });
  return endpoint({
    model: "local/echo",
    prompt,
    search: [{ dataset_id: created.body.id, variable: "context", query }],
  });
}

/** The official openai client as the tenant, pointed at one endpoint. */
const openaiFor = (id: string) =>
  new OpenAI({ apiKey: tenant.key, baseURL: `${baseUrl()}/api/endpoints/${id}` });

/** A streamed chat completion through the official client (the model name is ignored). */
const streamChat = (id: string, messages: OpenAI.Chat.ChatCompletionMessageParam[]) =>
  openaiFor(id).chat.completions.create({ model: "any", messages, stream: true });

const stream = (id: string, body: Record<string, unknown>, options = {}) =>
  postSse(`/api/endpoints/${id}/completions`, { stream: true, ...body }, tenant.key, options);

async function logsOf(id: string) {
  return (await getWithBody(`/endpoints/${id}/logs`, {}, tenant.key)).body as Record<string, any>[];
}

/** What the loopback upstream received, for requests made with this `user`. */
async function upstreamRequests(user: string): Promise<FakeRequest[]> {
  const res = await fetch(`${inject("openaiBaseUrl")}/__requests`);
  return ((await res.json()) as FakeRequest[]).filter((r) => r.body.user === user);
}

describe("E4 stream (SSE)", () => {
  it("streams text_completion chunks, [DONE], then the search results, frame by frame", async () => {
    const id = await echoEndpointOverRow(
      "kb",
      "Tides follow the moon.",
      "tides",
      "{{context}} Why?",
    );
    const reply = await stream(id, { prompt: [] });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    expect(reply.headers.get("cache-control")).toBe("no-cache");
    expect(reply.headers.get("x-accel-buffering")).toBe("no");
    expect(reply.headers.get("x-request-id")).toBeTruthy();

    // Every frame is exactly one `data:` line.
    for (const frame of reply.frames) {
      expect(frame.raw).toBe(`data: ${frame.data}`);
      expect(frame.data).not.toContain("\n");
    }
    const data = reply.frames.map((f) => f.data);
    expect(data.at(-2)).toBe("[DONE]");
    expect(data.filter((d) => d === "[DONE]")).toHaveLength(1);
    const chunks = data.slice(0, -2).map((d) => JSON.parse(d));
    const usageId = chunks[0].choices[0].usage_id;
    const words = ["Tides ", "follow ", "the ", "moon. ", "Why?"];
    expect(chunks).toHaveLength(words.length + 1);
    words.forEach((text, i) => {
      expect(chunks[i]).toEqual({
        id: chunks[0].id,
        object: "text_completion",
        created: chunks[0].created,
        model: "echo",
        choices: [{ text, index: 0, logprobs: null, finish_reason: null, usage_id: usageId }],
      });
    });
    expect(chunks.at(-1)).toEqual({
      id: chunks[0].id,
      object: "text_completion",
      created: chunks[0].created,
      model: "echo",
      choices: [{ text: "", index: 0, logprobs: null, finish_reason: "stop", usage_id: usageId }],
      usage: { prompt_tokens: 7, completion_tokens: 7, total_tokens: 14 },
      // echo is priced at 0 (the JSON reply carries the same two fields)
      prompt_cost: 0,
      completion_cost: 0,
      // on the last chunk too, where OpenAI's clients (which stop at [DONE]) see them
      search_results: [
        expect.objectContaining({
          embedding: "Tides follow the moon.",
          variable: "context",
          image_paths: null,
          last_accessed: expect.any(String),
        }),
      ],
    });
    const searchEvent = JSON.parse(data.at(-1)!);
    expect(searchEvent).toEqual({
      choices: [],
      search_results: chunks.at(-1).search_results,
      usage_id: usageId,
    });
    // the log is written before [DONE]
    const [log] = await logsOf(id);
    expect(log).toMatchObject({ id: usageId, completion: "Tides follow the moon. Why?" });
    expect(JSON.parse(log?.status)).toEqual({ status: 200 });
  });

  it("streams chat.completion.chunk deltas for a chat endpoint, and no search event", async () => {
    const id = await endpoint({
      model: "openai/reply",
      messages: [{ role: "user", content: "Hi" }],
    });
    const reply = await stream(id, { messages: [] });
    const data = reply.frames.map((f) => f.data);
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    const pieces = FAKE_REPLY.split(/(?<= )/);
    expect(chunks).toHaveLength(pieces.length + 1);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: pieces[0] });
    for (const [i, piece] of pieces.entries()) {
      expect(chunks[i]).toMatchObject({
        object: "chat.completion.chunk",
        model: "reply",
        choices: [{ index: 0, finish_reason: null, logprobs: null }],
      });
      expect(chunks[i].choices[0].delta.content).toBe(piece);
    }
    expect(chunks.at(-1).choices).toEqual([
      {
        index: 0,
        delta: {},
        logprobs: null,
        finish_reason: "stop",
        usage_id: chunks[0].choices[0].usage_id,
      },
    ]);
    expect(FAKE_CREATED).not.toBe(chunks[0].created); // our own id and time, not the upstream's
  });

  it("forwards bytes as the model produces them (no buffering)", async () => {
    const id = await endpoint({ model: "openai/slow:250", prompt: "p" });
    const reply = await stream(id, { prompt: [] });
    const text = reply.frames.slice(0, -2).map((f) => JSON.parse(f.data).choices[0].text);
    expect(text.join("")).toBe(FAKE_REPLY);
    const first = reply.frames[0]!.at;
    const done = reply.frames.at(-1)!.at;
    // 11 words at 250 ms each: the first must arrive long before the last
    expect(done - first).toBeGreaterThan(2000);
    const gaps = reply.frames.slice(1, 6).map((f, i) => f.at - reply.frames[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThan(150);
  });

  it("answers a provider that fails at once with a 502 envelope, not a stream", async () => {
    const id = await endpoint({ model: "openai/fail:500", prompt: "p" });
    const res = await fetch(`${baseUrl()}/api/endpoints/${id}/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: [], stream: true }),
    });
    const text = await res.text();
    expectEnvelope(
      { status: res.status, headers: res.headers, body: JSON.parse(text), text },
      502,
      "upstream_error",
    );
    const [log] = await logsOf(id);
    expect(JSON.parse(log?.status).status).toBe(502);
  });

  it("ends a stream cut mid-way with an upstream_error event and no [DONE], logged", async () => {
    const id = await endpoint({ model: "openai/cut:3", prompt: "p" });
    const reply = await stream(id, { prompt: [] });
    expect(reply.status).toBe(200);
    const data = reply.frames.map((f) => f.data);
    expect(data).not.toContain("[DONE]");
    expect(data).toHaveLength(4);
    const partial = data
      .slice(0, 3)
      .map((d) => JSON.parse(d).choices[0].text)
      .join("");
    expect(partial).toBe("Grounded answers arrive ");
    const error = JSON.parse(data[3]!).error;
    expect(error).toMatchObject({
      code: "upstream_error",
      request_id: reply.headers.get("x-request-id"),
    });
    const [log] = await logsOf(id);
    expect(log?.completion).toBe(partial);
    expect(JSON.parse(log?.status).status).toBe(502);
  });

  it("logs a stream the client abandons (499) and stops the upstream request", async () => {
    const id = await endpoint({ model: "openai/slow:200", prompt: "p" });
    const user = `leaver-${Date.now()}`;
    const reply = await stream(id, { prompt: [], user }, { stopAfter: 2 });
    expect(reply.frames).toHaveLength(2);
    await expect
      .poll(async () => (await logsOf(id))[0]?.status, { timeout: 15_000, interval: 200 })
      .toBe(JSON.stringify({ status: 499, error: "the client closed the stream before the end" }));
    const [log] = await logsOf(id);
    expect(log?.completion.startsWith("Grounded answers ")).toBe(true);
    expect(log?.completion.length).toBeLessThan(FAKE_REPLY.length);
    expect(log?.user_id).toBe(user);
    await expect
      .poll(async () => (await upstreamRequests(user))[0]?.closed_early, { timeout: 10_000 })
      .toBe(true);
  });
});

describe("the official openai client reads the stream end to end", () => {
  it("chat.completions.create({stream: true}) on a chat endpoint", async () => {
    const id = await endpoint({
      model: "openai/reply",
      messages: [{ role: "system", content: "S" }],
    });
    const events = await streamChat(id, [{ role: "user", content: "Hi" }]);
    let text = "";
    let finish: string | null | undefined;
    for await (const chunk of events) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe(FAKE_REPLY);
    expect(finish).toBe("stop");
  });

  it("completions.create({stream: true}) on a prompt endpoint with search", async () => {
    const id = await echoEndpointOverRow("kb2", "Moons pull oceans.", "moon", "{{context}}");
    const events = await openaiFor(id).completions.create({
      model: "any",
      prompt: "Why?",
      stream: true,
    });
    let text = "";
    for await (const chunk of events) text += chunk.choices[0]?.text ?? "";
    expect(text).toBe("Moons pull oceans.\nWhy?");
  });

  it("chat on a prompt endpoint through /chat/completions still gets chat chunks", async () => {
    const id = await endpoint({ model: "local/echo", prompt: "Base" });
    const events = await streamChat(id, [{ role: "user", content: "more" }]);
    let text = "";
    for await (const chunk of events) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Base\nmore");
  });

  it("surfaces a mid-stream upstream failure as an APIError", async () => {
    const id = await endpoint({
      model: "openai/cut:2",
      messages: [{ role: "user", content: "x" }],
    });
    const events = await streamChat(id, []);
    const received: string[] = [];
    const error = await (async () => {
      for await (const chunk of events) received.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(received.join("")).toBe("Grounded answers ");
  });
});
