import { type Database, logs } from "@quarry/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BadRequestError,
  CompletionInput,
  type CompletionOptions,
  CreateEndpointInput,
  completeEndpoint,
  createDataset,
  createEndpoint,
  getEndpoint,
  type ProjectContext,
  parseInput,
  streamEndpoint,
  upsertRows,
} from "../src/index.ts";
import { builtinValues } from "../src/templates/builtin-variables.ts";
import { freshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

let db: Database;
let close: () => Promise<void>;
beforeAll(async () => {
  const fresh = await freshDatabase();
  db = fresh.db;
  close = fresh.close;
});
afterAll(() => close());

const options: CompletionOptions = { callerId: "key_caller", retries: 0 };
const input = (body: unknown) => parseInput(CompletionInput, body);

async function tenant(): Promise<ProjectContext> {
  return (await createTenant(db, "variables")).ctx;
}

async function rejection(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BadRequestError);
  return (error as Error).message;
}

async function logCount(endpointId: string): Promise<number> {
  return (await db.select().from(logs).where(eq(logs.endpointId, endpointId))).length;
}

describe("values no variable uses", () => {
  it("are named beside the missing ones in the 400", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "e",
      model: "local/echo",
      prompt: "{{question}} for {{audience}}",
    });
    const message = await rejection(
      completeEndpoint(
        ctx,
        endpoint.id,
        input({ values: { questoin: "Why?", audience: "kids", extra: null }, prompt: [] }),
        options,
      ),
    );
    expect(message).toBe(
      "values: missing variable question; values questoin, extra are not used by the template (its variables: question, audience)",
    );
    expect(await logCount(endpoint.id)).toBe(0);
  });

  it("count a value for a variable search fills as unused", async () => {
    const ctx = await tenant();
    const dataset = await createDataset(ctx, { name: "kb" }, { embeddingModel: "local/hash" });
    const endpoint = await createEndpoint(ctx, {
      name: "e",
      model: "local/echo",
      prompt: "{{context}}",
      search: [{ dataset_id: dataset.id, variable: "context", query: "{{q}}" }],
    });
    const message = await rejection(
      completeEndpoint(ctx, endpoint.id, input({ values: { context: "x" }, prompt: [] }), options),
    );
    expect(message).toBe(
      "values: missing variable q; value context is not used by the template (its variables: q)",
    );
  });

  it("are listed within bounds however many the caller sends", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, { name: "e", model: "local/echo", prompt: "{{a}}" });
    const values = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`${"k".repeat(100)}${i}`, "x"]),
    );
    const message = await rejection(
      completeEndpoint(ctx, endpoint.id, input({ values, prompt: [] }), options),
    );
    expect(message).toContain(`values ${"k".repeat(64)}…, `);
    expect(message).toContain(" and 10 more are not used by the template (its variables: a)");
    expect(message.length).toBeLessThan(2000);
  });

  it("alone are accepted, ignored, and kept in the log's values", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, { name: "e", model: "local/echo", prompt: "{{a}}" });
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      input({ values: { a: "1", dropped: "2" }, prompt: [] }),
      options,
    );
    expect(reply.choices[0]?.text).toBe("1");
    const [log] = await db.select().from(logs).where(eq(logs.endpointId, endpoint.id));
    expect(log?.values).toEqual({ a: "1", dropped: "2" });
  });
});

describe("{{last_user_message}}", () => {
  it("is the last user turn of the request, in the order it is appended", () => {
    const messages = [
      { role: "user" as const, content: "first" },
      { role: "assistant" as const, content: "reply" },
      { role: "user" as const, content: "second" },
      { role: "system" as const, content: "not a user" },
    ];
    expect(builtinValues("chat", { messages })).toEqual({ last_user_message: "second" });
    // chat endpoints append prompt items after messages; completion endpoints before
    expect(builtinValues("chat", { messages, prompt: ["p1", "p2"] })).toEqual({
      last_user_message: "p2",
    });
    expect(builtinValues("completion", { messages, prompt: ["p1", "p2"] })).toEqual({
      last_user_message: "second",
    });
    expect(builtinValues("completion", { prompt: ["only"] })).toEqual({
      last_user_message: "only",
    });
    expect(builtinValues("chat", { messages: [{ role: "assistant", content: "x" }] })).toEqual({});
  });

  it("feeds a search query with no values, on a chat endpoint", async () => {
    const ctx = await tenant();
    const dataset = await createDataset(ctx, { name: "kb" }, { embeddingModel: "local/hash" });
    await upsertRows(ctx, dataset.id, {
      rows: [
        { data: { text: "Tides follow the moon." } },
        { data: { text: "Bread needs yeast." } },
      ],
    });
    const endpoint = await createEndpoint(ctx, {
      name: "qa",
      model: "local/echo",
      messages: [{ role: "system", content: "Notes: {{context}}" }],
      search: [
        { dataset_id: dataset.id, variable: "context", query: "{{last_user_message}}", top_k: 1 },
      ],
    });
    expect(endpoint.variables).toEqual([]);
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      input({
        messages: [
          { role: "user", content: "bread?" },
          { role: "assistant", content: "Yes." },
          { role: "user", content: "what about the moon and tides" },
        ],
      }),
      options,
    );
    expect(reply.choices[0]?.text).toBe(
      [
        "system: Notes: Tides follow the moon.",
        "user: bread?",
        "assistant: Yes.",
        "user: what about the moon and tides",
      ].join("\n"),
    );
    expect(reply.search_results?.map((r) => r.embedding)).toEqual(["Tides follow the moon."]);
    // the log keeps the caller's values only
    const [log] = await db.select().from(logs).where(eq(logs.endpointId, endpoint.id));
    expect(log?.values).toBeNull();
  });

  it("renders in a template, never re-expanding what the user typed", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "e",
      model: "local/echo",
      prompt: "Q: {{last_user_message}} ({{lang}})",
    });
    expect(endpoint.variables).toEqual(["lang"]);
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      input({ values: { lang: "en" }, prompt: "{{lang}}?" }),
      options,
    );
    expect(reply.choices[0]?.text).toBe("Q: {{lang}}? (en)\n{{lang}}?");
  });

  it("is a 400 when the request has no user message, and logs nothing", async () => {
    const ctx = await tenant();
    const endpoint = await createEndpoint(ctx, {
      name: "e",
      model: "local/echo",
      messages: [{ role: "user", content: "{{last_user_message}} {{x}}" }],
    });
    expect(
      await rejection(
        completeEndpoint(
          ctx,
          endpoint.id,
          input({ messages: [{ role: "assistant", content: "hi" }], values: { x: "1" } }),
          options,
        ),
      ),
    ).toBe(
      "messages: {{last_user_message}} needs a user message in the request (messages or prompt)",
    );
    expect(
      await rejection(completeEndpoint(ctx, endpoint.id, input({ messages: [] }), options)),
    ).toBe(
      "values: missing variable x; {{last_user_message}} needs a user message in the request (messages or prompt)",
    );
    expect(await logCount(endpoint.id)).toBe(0);
  });

  it("cannot be given in values, nor filled by a search block", async () => {
    expect(() => input({ prompt: "x", values: { last_user_message: "y" } })).toThrow(
      "values.last_user_message: is built in",
    );
    const ctx = await tenant();
    const dataset = await createDataset(ctx, { name: "kb" }, { embeddingModel: "local/hash" });
    const message = await rejection(
      (async () =>
        createEndpoint(
          ctx,
          parseInput(CreateEndpointInput, {
            name: "e",
            model: "local/echo",
            prompt: "{{last_user_message}}",
            search: [{ dataset_id: dataset.id, variable: "last_user_message", query: "q" }],
          }),
        ))(),
    );
    expect(message).toContain("search[0].variable: 'last_user_message' is a built-in variable");
  });

  it("puts a stream's search results on the last chunk before [DONE]", async () => {
    const ctx = await tenant();
    const dataset = await createDataset(ctx, { name: "kb" }, { embeddingModel: "local/hash" });
    await upsertRows(ctx, dataset.id, { rows: [{ data: { text: "Tides follow the moon." } }] });
    const endpoint = await createEndpoint(ctx, {
      name: "s",
      model: "local/echo",
      messages: [{ role: "system", content: "{{context}}" }],
      search: [{ dataset_id: dataset.id, variable: "context", query: "{{last_user_message}}" }],
    });
    const stream = await streamEndpoint(
      ctx,
      endpoint.id,
      input({ messages: [{ role: "user", content: "tides" }], stream: true }),
      options,
    );
    const events: string[] = [];
    const reader = stream.events.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(value);
    }
    const done = events.indexOf("[DONE]");
    const last = JSON.parse(events[done - 1]!);
    expect(last.choices[0].finish_reason).toBe("stop");
    expect(last.search_results).toEqual([
      expect.objectContaining({ embedding: "Tides follow the moon.", variable: "context" }),
    ]);
    // the event after [DONE] stays, for readers that read past it
    expect(JSON.parse(events.at(-1)!).search_results).toEqual(last.search_results);
    // only the last chunk carries them
    for (const event of events.slice(0, done - 1)) {
      expect(JSON.parse(event)).not.toHaveProperty("search_results");
    }
    expect((await getEndpoint(ctx, endpoint.id)).variables).toEqual([]);
  });
});
