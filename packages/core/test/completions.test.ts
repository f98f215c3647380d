import { type Database, logs } from "@quarry/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FAKE_REPLY,
  type FakeOpenAI,
  startFakeOpenAI,
} from "../../../workers/api/test/support/fake-openai-server.ts";
import {
  BadRequestError,
  CompletionInput,
  type CompletionOptions,
  completeEndpoint,
  costOf,
  createDataset,
  createEndpoint,
  LOG_STATUS,
  MODEL_PRICES,
  type ProjectContext,
  parseInput,
  priceOf,
  streamEndpoint,
  UpstreamError,
  upsertRows,
} from "../src/index.ts";
import { freshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

let db: Database;
let close: () => Promise<void>;
let upstream: FakeOpenAI;
beforeAll(async () => {
  const fresh = await freshDatabase();
  db = fresh.db;
  upstream = await startFakeOpenAI();
  close = async () => {
    await upstream.close();
    await fresh.close();
  };
});
afterAll(() => close());

const options: CompletionOptions = { callerId: "key_caller", retries: 0 };

async function tenant(): Promise<ProjectContext> {
  const { ctx } = await createTenant(db, "completions");
  return { ...ctx, providers: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: upstream.url } };
}

async function logOf(id: string) {
  const [log] = await db.select().from(logs).where(eq(logs.id, id));
  return log;
}

/** Every event of a completion stream, in order (the stream read to its end). */
async function readAll(events: ReadableStream<string>, out: string[] = []): Promise<string[]> {
  const reader = events.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

const input = (body: unknown) => parseInput(CompletionInput, body);

describe("completions (JSON)", () => {
  it("renders a completion endpoint's template with values and logs the completion", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "summary",
      model: "local/echo",
      prompt: "Summarise {{topic}} for {{ audience }}.",
      temperature: 0.2,
    });
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      input({ values: { topic: "tides", audience: "children" }, prompt: [] }),
      options,
    );
    expect(reply).toMatchObject({
      object: "text_completion",
      model: "echo",
      service_model_name: "local/echo",
      prompt_cost: 0,
      completion_cost: 0,
      choices: [
        {
          text: "Summarise tides for children.",
          index: 0,
          logprobs: null,
          finish_reason: "stop",
        },
      ],
    });
    expect(reply.id).toMatch(/^cmpl-/);
    expect(reply.created).toBeCloseTo(Date.now() / 1000, -1);
    expect(reply.search_results).toBeUndefined();
    // echo's tokenizer: 4 words and a full stop, the completion being the prompt
    expect(reply.usage).toEqual({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });

    const log = await logOf(reply.choices[0]!.usage_id);
    expect(log).toMatchObject({
      projectId: ctx.projectId,
      endpointId: endpoint.id,
      deploymentId: 1,
      userId: "key_caller",
      model: "echo",
      serviceModelName: "local/echo",
      prompt: "Summarise tides for children.",
      completion: "Summarise tides for children.",
      values: { topic: "tides", audience: "children" },
      status: 200,
      error: null,
      promptTokens: 5,
      completionTokens: 5,
      temperature: 0.2,
      searchResults: [],
    });
    expect(log?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("is a 400 naming every missing variable, and logs nothing", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "e",
      model: "local/echo",
      prompt: "{{a}} {{b}} {{c}}",
    });
    const error = await completeEndpoint(
      ctx,
      endpoint.id,
      input({ values: { b: "x" }, prompt: "" }),
      options,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toBe("values: missing variables a, c");
    expect(await db.select().from(logs).where(eq(logs.endpointId, endpoint.id))).toEqual([]);
  });

  it("requires prompt or messages (docs/api.md, E4 rule 1) and checks their shapes", () => {
    expect(() => input({ values: {} })).toThrow("messages: one of prompt or messages is required");
    expect(() => input({ prompt: [1] })).toThrow("prompt[0]: must be a string");
    expect(() => input({ messages: [{ role: "robot", content: "x" }] })).toThrow(
      "messages[0].role",
    );
    expect(() => input({ messages: [], user: 3 })).toThrow("user:");
    // unknown OpenAI fields are accepted
    expect(input({ prompt: "x", model: "gpt", stop: ["\n"], stream_options: {} }).prompt).toEqual([
      "x",
    ]);
  });

  it("extends a chat endpoint's rendered messages with the request's messages", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "chat",
      model: "local/echo",
      messages: [
        { role: "system", content: "You answer about {{topic}}." },
        { role: "user", content: "Hello" },
      ],
    });
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      input({
        values: { topic: "tides" },
        messages: [
          { role: "assistant", content: "Hi!" },
          { role: "user", content: "Why {{topic}}?" },
        ],
      }),
      options,
    );
    // the caller's own text is not a template: {{topic}} stays as typed
    expect(reply.choices[0]?.text).toBe(
      "system: You answer about tides.\nuser: Hello\nassistant: Hi!\nuser: Why {{topic}}?",
    );
    const log = await logOf(reply.choices[0]!.usage_id);
    expect(log?.prompt).toEqual([
      { role: "system", content: "You answer about tides." },
      { role: "user", content: "Hello" },
      { role: "assistant", content: "Hi!" },
      { role: "user", content: "Why {{topic}}?" },
    ]);
  });

  it("runs search blocks and renders their results into the variable", async () => {
    const ctx = await tenant();
    const dataset = await createDataset(ctx, { name: "kb" }, { embeddingModel: "local/hash" });
    await upsertRows(ctx, dataset.id, {
      document_id: "doc",
      rows: [
        { data: { text: "Tides are caused by the moon's gravity." }, metadata: { topic: "sea" } },
        { data: { text: "Bread rises because of yeast." }, metadata: { topic: "food" } },
        { data: { text: "Spring tides happen at new and full moon." }, metadata: { topic: "sea" } },
      ],
    });
    const endpoint = await createEndpoint(ctx, {
      name: "qa",
      model: "local/echo",
      prompt: "Context:\n{{context}}\nQuestion: {{question}}",
      search: [
        {
          dataset_id: dataset.id,
          variable: "context",
          query: "{{question}}",
          top_k: 2,
          filter: { topic: "sea" },
        },
      ],
    });
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      input({ values: { question: "what causes tides" }, prompt: [] }),
      options,
    );
    const results = reply.search_results ?? [];
    expect(results).toHaveLength(2);
    for (const result of results) {
      expect(result).toMatchObject({
        variable: "context",
        image_paths: null,
        query: "what causes tides",
        metadata: { topic: "sea", documentId: "doc" },
      });
      expect(Date.parse(result.last_accessed)).toBeGreaterThan(Date.now() - 60_000);
    }
    const context = results.map((r) => r.embedding).join("\n\n");
    expect(context).toContain("moon");
    expect(reply.choices[0]?.text).toBe(`Context:\n${context}\nQuestion: what causes tides`);
    const log = await logOf(reply.choices[0]!.usage_id);
    expect(log?.searchResults).toEqual(results);
  });

  it("calls openai/* models over HTTP with the user, prices the tokens and logs them", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "priced",
      model: "openai/gpt-4o-mini",
      prompt: "Say {{what}}",
      max_tokens: 50,
    });
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      input({ values: { what: "hello" }, prompt: "please", user: "end-user-7" }),
      options,
    );
    const sent = upstream.requests.at(-1);
    expect(sent?.path).toBe("/chat/completions");
    expect(sent?.body).toMatchObject({
      model: "gpt-4o-mini",
      user: "end-user-7",
      max_tokens: 50,
      messages: [{ role: "user", content: "Say hello\nplease" }],
    });
    expect(reply.choices[0]?.text).toBe(FAKE_REPLY);
    expect(reply.model).toBe("gpt-4o-mini");
    const { prompt_tokens, completion_tokens } = reply.usage;
    expect(prompt_tokens).toBeGreaterThan(0);
    expect(completion_tokens).toBe(FAKE_REPLY.split(" ").length);
    const price = MODEL_PRICES["openai/gpt-4o-mini"]!;
    expect(reply.prompt_cost).toBeCloseTo((prompt_tokens * price.input) / 1e6, 12);
    expect(reply.completion_cost).toBeCloseTo((completion_tokens * price.output) / 1e6, 12);
    const log = await logOf(reply.choices[0]!.usage_id);
    expect(log).toMatchObject({ userId: "end-user-7", status: 200, completion: FAKE_REPLY });
    expect(log?.promptCost).toBeCloseTo(reply.prompt_cost, 12);
  });

  it.each([500, 429])("turns an upstream %i into a logged upstream_error", async (status) => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "down",
      model: `openai/fail:${status}`,
      prompt: "hi",
    });
    const error = await completeEndpoint(ctx, endpoint.id, input({ prompt: [] }), options).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).upstreamStatus).toBe(status);
    const [log] = await db.select().from(logs).where(eq(logs.endpointId, endpoint.id));
    expect(log).toMatchObject({ status: LOG_STATUS.upstreamError, completion: "" });
    expect(log?.error).toContain(`status ${status}`);
  });

  it("times out a model that never answers, and logs it", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, { name: "h", model: "openai/hang", prompt: "hi" });
    const started = Date.now();
    const error = await completeEndpoint(ctx, endpoint.id, input({ prompt: [] }), {
      ...options,
      timeouts: { firstTokenMs: 300 },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(Date.now() - started).toBeLessThan(5000);
    const [log] = await db.select().from(logs).where(eq(logs.endpointId, endpoint.id));
    expect(log?.status).toBe(502);
  });
});

describe("completions (stream)", () => {
  it("streams text chunks, the finish chunk, [DONE] and the search results, logged before [DONE]", async () => {
    const ctx = await tenant();
    const dataset = await createDataset(ctx, { name: "kb" }, { embeddingModel: "local/hash" });
    await upsertRows(ctx, dataset.id, { rows: [{ data: { text: "Tides follow the moon." } }] });
    const endpoint = await createEndpoint(ctx, {
      name: "s",
      model: "local/echo",
      prompt: "{{context}} Why?",
      search: [{ dataset_id: dataset.id, variable: "context", query: "tides" }],
    });
    const stream = await streamEndpoint(
      ctx,
      endpoint.id,
      input({ prompt: [], stream: true }),
      options,
    );
    const reader = stream.events.getReader();
    const events: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(value);
      if (value === "[DONE]") {
        // the log is there by the time [DONE] is
        expect((await logOf(stream.logId))?.status).toBe(200);
      }
    }
    await stream.logged;
    const done = events.indexOf("[DONE]");
    expect(done).toBe(events.length - 2);
    const chunks = events.slice(0, done).map((e) => JSON.parse(e));
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: "text_completion", model: "echo" });
      expect(chunk.choices).toHaveLength(1);
      expect(chunk.choices[0]).toMatchObject({ index: 0, usage_id: stream.logId });
    }
    const last = chunks.at(-1);
    expect(last.choices[0]).toMatchObject({ text: "", finish_reason: "stop" });
    // echo's tokenizer: Tides follow the moon . Why ?
    expect(last.usage).toEqual({ prompt_tokens: 7, completion_tokens: 7, total_tokens: 14 });
    const log = await logOf(stream.logId);
    expect(last.prompt_cost).toBe(log?.promptCost);
    expect(last.completion_cost).toBe(log?.completionCost);
    const text = chunks.map((c) => c.choices[0].text).join("");
    expect(text).toBe("Tides follow the moon. Why?");
    expect(chunks.length).toBeGreaterThan(3); // word by word
    const searchEvent = JSON.parse(events.at(-1)!);
    expect(searchEvent).toMatchObject({ choices: [], usage_id: stream.logId });
    expect(searchEvent.search_results[0]).toMatchObject({
      embedding: "Tides follow the moon.",
      variable: "context",
      image_paths: null,
    });
    expect(await logOf(stream.logId)).toMatchObject({ completion: text, status: 200 });
  });

  it("streams a chat endpoint as chat.completion.chunk deltas without a search event", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "c",
      model: "openai/reply",
      messages: [{ role: "user", content: "Hi" }],
    });
    const stream = await streamEndpoint(
      ctx,
      endpoint.id,
      input({ messages: [], stream: true }),
      options,
    );
    const events = await readAll(stream.events);
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "Grounded " });
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(
      chunks
        .slice(0, -1)
        .map((c) => c.choices[0].delta.content)
        .join(""),
    ).toBe(FAKE_REPLY);
    expect(chunks.at(-1).choices[0]).toEqual({
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: "stop",
      usage_id: stream.logId,
    });
    await stream.logged;
    expect(await logOf(stream.logId)).toMatchObject({ completion: FAKE_REPLY, status: 200 });
  });

  it("fails before the first byte as an upstream_error, logged", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "f",
      model: "openai/fail:500",
      prompt: "x",
    });
    const error = await streamEndpoint(
      ctx,
      endpoint.id,
      input({ prompt: [], stream: true }),
      options,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    const [log] = await db.select().from(logs).where(eq(logs.endpointId, endpoint.id));
    expect(log?.status).toBe(502);
  });

  it("errors a stream cut mid-way with an upstream_error and logs the partial text", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, { name: "cut", model: "openai/cut:3", prompt: "x" });
    const stream = await streamEndpoint(
      ctx,
      endpoint.id,
      input({ prompt: [], stream: true }),
      options,
    );
    const received: string[] = [];
    const error = await readAll(stream.events, received).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(received).toHaveLength(3);
    await stream.logged;
    const log = await logOf(stream.logId);
    const partial = received.map((e) => JSON.parse(e).choices[0].text).join("");
    expect(partial).toBe("Grounded answers arrive ");
    expect(log).toMatchObject({ status: 502, completion: partial });
  });

  it("times out a stream that stalls, and logs it", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "st",
      model: "openai/stall:2",
      prompt: "x",
    });
    const stream = await streamEndpoint(ctx, endpoint.id, input({ prompt: [], stream: true }), {
      ...options,
      timeouts: { idleMs: 300 },
    });
    const error = await readAll(stream.events).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toContain("no new token within 300 ms");
    await stream.logged;
    expect(await logOf(stream.logId)).toMatchObject({
      status: 502,
      completion: "Grounded answers ",
    });
  });

  it("stops the model and logs 499 when the client cancels", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "slow",
      model: "openai/slow:100",
      prompt: "x",
    });
    const stream = await streamEndpoint(
      ctx,
      endpoint.id,
      input({ prompt: [], stream: true }),
      options,
    );
    const reader = stream.events.getReader();
    const first = await reader.read();
    expect(JSON.parse(first.value ?? "{}").choices[0].text).toBe("Grounded ");
    await reader.cancel(new Error("client went away"));
    await stream.logged;
    expect(await logOf(stream.logId)).toMatchObject({ status: 499, completion: "Grounded " });
    // the upstream request was aborted, not left running
    await expect.poll(() => upstream.requests.at(-1)?.closed_early).toBe(true);
  });
});

describe("model prices", () => {
  it("prices dated snapshots by the longest listed prefix, unknown models at 0", () => {
    expect(priceOf("openai/gpt-4o-mini-2024-07-18")).toBe(MODEL_PRICES["openai/gpt-4o-mini"]);
    expect(priceOf("openai/gpt-4o-2024-08-06")).toBe(MODEL_PRICES["openai/gpt-4o"]);
    expect(priceOf("openai/gpt-4o-mini")).toBe(MODEL_PRICES["openai/gpt-4o-mini"]);
    expect(priceOf("openai/gpt-4omni")).toEqual({ input: 0, output: 0 });
    expect(priceOf("openai/unknown")).toEqual({ input: 0, output: 0 });
    expect(costOf({ input: 0.15, output: 0.6 }, { prompt: 1000, completion: 2000 })).toEqual({
      prompt: 0.00015,
      completion: 0.0012,
    });
  });
});
