import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, call, expectEnvelope } from "./support/client.ts";
import { postDataset, postEndpoint, upsertRows } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

/**
 * Issue 15 items 6 and 7 through workerd: `values` no variable uses are named in the 400 that
 * lists the missing ones; the built-in `{{last_user_message}}` lets a plain OpenAI client
 * drive a search; a stream's search results reach the `openai` client on its last chunk.
 */
let tenant: Tenant;
let datasetId: string;
beforeAll(async () => {
  tenant = await createTenant("variables");
  const dataset = await postDataset(tenant.key, { name: "notes" });
  datasetId = dataset.body.id;
  const rows = await upsertRows(tenant.key, datasetId, {
    rows: [
      { data: { text: "Tides follow the moon." } },
      { data: { text: "Bread needs yeast and time." } },
    ],
  });
  expect(rows.status).toBe(200);
});

async function endpoint(body: Record<string, unknown>): Promise<Record<string, any>> {
  const created = await postEndpoint(tenant.key, { name: "v", ...body });
  if (created.status !== 201) throw new Error(`create endpoint: ${created.text}`);
  return created.body;
}

const complete = (id: string, body: unknown) =>
  call(`/api/endpoints/${id}/completions`, { method: "POST", token: tenant.key, body });

/** A chat endpoint whose search query is the user's question: what an OpenAI client needs. */
const qaEndpoint = () =>
  endpoint({
    model: "local/echo",
    messages: [{ role: "system", content: "Answer from: {{context}}" }],
    search: [
      { dataset_id: datasetId, variable: "context", query: "{{last_user_message}}", top_k: 1 },
    ],
  });

const client = (id: string) =>
  new OpenAI({ apiKey: tenant.key, baseURL: `${baseUrl()}/api/endpoints/${id}` });

describe("values no variable uses", () => {
  it("are named in the 400 that lists the missing variables, JSON or stream", async () => {
    const { id } = await endpoint({ model: "local/echo", prompt: "{{question}} ({{lang}})" });
    const body = { values: { questoin: "Why?", lang: "en" }, prompt: [] };
    const expected =
      "values: missing variable question; value questoin is not used by the template (its variables: question, lang)";
    expect(expectEnvelope(await complete(id, body), 400, "bad_request").message).toBe(expected);
    // a stream is refused before it starts: an error status, not a 200 stream
    const streamed = await complete(id, { ...body, stream: true });
    expect(expectEnvelope(streamed, 400, "bad_request").message).toBe(expected);
  });

  it("alone are accepted (a caller may still send a variable a new deployment dropped)", async () => {
    const { id } = await endpoint({ model: "local/echo", prompt: "{{lang}}" });
    const reply = await complete(id, { values: { lang: "en", dropped: "x" }, prompt: [] });
    expect(reply.status).toBe(200);
    expect(reply.body.choices[0].text).toBe("en");
  });
});

describe("{{last_user_message}}", () => {
  it("is not a variable the caller fills, and cannot be sent in values", async () => {
    const created = await qaEndpoint();
    expect(created.variables).toEqual([]);
    const error = expectEnvelope(
      await complete(created.id, {
        values: { last_user_message: "tides" },
        messages: [{ role: "user", content: "tides" }],
      }),
      400,
      "bad_request",
    );
    expect(error.message).toContain("values.last_user_message: is built in");
    const refused = await postEndpoint(tenant.key, {
      name: "x",
      model: "local/echo",
      prompt: "{{last_user_message}}",
      search: [{ dataset_id: datasetId, variable: "last_user_message", query: "q" }],
    });
    expect(expectEnvelope(refused, 400, "bad_request").message).toContain("search[0].variable");
  });

  it("feeds the search of a plain openai chat call (no values)", async () => {
    const { id } = await qaEndpoint();
    const chat = await client(id).chat.completions.create({
      model: "any",
      messages: [
        { role: "user", content: "bread?" },
        { role: "assistant", content: "Later." },
        { role: "user", content: "why do tides follow the moon" },
      ],
    });
    expect(chat.choices[0]?.message.content).toBe(
      [
        "system: Answer from: Tides follow the moon.",
        "user: bread?",
        "assistant: Later.",
        "user: why do tides follow the moon",
      ].join("\n"),
    );
    // a field of ours on the JSON reply, kept on the SDK's object
    const results = (chat as unknown as { search_results: { embedding: string }[] }).search_results;
    expect(results.map((r) => r.embedding)).toEqual(["Tides follow the moon."]);
  });

  it("is the prompt of a completion-style openai call", async () => {
    const { id } = await endpoint({
      model: "local/echo",
      prompt: "Notes: {{context}}",
      search: [
        { dataset_id: datasetId, variable: "context", query: "{{last_user_message}}", top_k: 1 },
      ],
    });
    const completion = await client(id).completions.create({ model: "any", prompt: "yeast" });
    expect(completion.choices[0]?.text).toBe("Notes: Bread needs yeast and time.\nyeast");
  });

  it("a request with no user message is a 400 that says so", async () => {
    const { id } = await qaEndpoint();
    const error = expectEnvelope(await complete(id, { messages: [] }), 400, "bad_request");
    expect(error.message).toBe(
      "messages: {{last_user_message}} needs a user message in the request (messages or prompt)",
    );
  });
});

describe("a stream's search results and the openai client", () => {
  it("arrive on the last chunk before [DONE], which the SDK passes through", async () => {
    const { id } = await qaEndpoint();
    const stream = await client(id).chat.completions.create({
      model: "any",
      messages: [{ role: "user", content: "moon tides" }],
      stream: true,
    });
    type Found = { embedding: string; variable: string; confidence: number }[];
    let text = "";
    let usageId: string | undefined;
    const withResults: Found[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usageId ??= (chunk.choices[0] as unknown as { usage_id?: string } | undefined)?.usage_id;
      const found = (chunk as unknown as { search_results?: Found }).search_results;
      if (found) {
        // only the last chunk, the one with the finish reason
        expect(chunk.choices[0]?.finish_reason).toBe("stop");
        withResults.push(found);
      }
    }
    expect(text).toBe("system: Answer from: Tides follow the moon.\nuser: moon tides");
    expect(withResults).toHaveLength(1);
    expect(withResults[0]).toEqual([
      expect.objectContaining({
        embedding: "Tides follow the moon.",
        variable: "context",
        confidence: expect.any(Number),
      }),
    ]);
    expect(usageId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
