import { generateText, streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { createLanguageModel, ProviderError, toProviderError } from "../src/index.ts";
import { type LoopbackServer, sendJson, startServer } from "./support/loopback-server.ts";

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content: unknown }[];
}

const deltas = ["Grounded ", "answers, ", "streamed."];

/** A minimal Chat Completions server: JSON, or SSE chunks when `stream` is set. */
async function startChatServer(): Promise<LoopbackServer> {
  server = await startServer((request, response) => {
    if (request.path !== "/chat/completions") {
      sendJson(response, 404, { error: { message: `no route ${request.path}` } });
      return;
    }
    const body = request.body as ChatRequest;
    const base = { id: "chatcmpl-1", created: 1_700_000_000, model: body.model };
    if (!body.stream) {
      sendJson(response, 200, {
        ...base,
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: "Hello from the loopback." },
            finish_reason: "stop",
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
      });
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const chunk = (choices: unknown[], extra: object = {}) =>
      response.write(
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra })}\n\n`,
      );
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    for (const content of deltas) {
      chunk([{ index: 0, delta: { content }, finish_reason: null }]);
    }
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]);
    chunk([], { usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } });
    response.end("data: [DONE]\n\n");
  });
  return server;
}

function env(url: string) {
  return { OPENAI_API_KEY: "sk-chat", OPENAI_BASE_URL: url };
}

describe("openai chat models", () => {
  it("answers generateText through /chat/completions", async () => {
    const { url, requests } = await startChatServer();
    const model = createLanguageModel("openai/gpt-4o-mini", env(url));

    const result = await generateText({
      model,
      system: "Be brief.",
      prompt: "Say hello.",
      temperature: 0.2,
      maxRetries: 0,
    });

    expect(result.text).toBe("Hello from the loopback.");
    expect(result.finishReason).toBe("stop");
    expect(result.usage).toMatchObject({ inputTokens: 11, outputTokens: 5, totalTokens: 16 });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers.authorization).toBe("Bearer sk-chat");
    expect(requests[0]?.body).toMatchObject({
      model: "gpt-4o-mini",
      temperature: 0.2,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say hello." },
      ],
    });
  });

  it("streams streamText from OpenAI SSE chunks", async () => {
    const { url, requests } = await startChatServer();
    const model = createLanguageModel("openai/gpt-4o-mini", env(url));

    const result = streamText({
      model,
      messages: [{ role: "user", content: "Stream, please." }],
      maxRetries: 0,
    });
    const received: string[] = [];
    for await (const delta of result.textStream) received.push(delta);

    expect(received.join("")).toBe(deltas.join(""));
    expect(received.length).toBeGreaterThanOrEqual(deltas.length);
    expect(await result.text).toBe("Grounded answers, streamed.");
    expect(await result.finishReason).toBe("stop");
    expect(await result.usage).toMatchObject({ inputTokens: 9, outputTokens: 3, totalTokens: 12 });
    expect(requests[0]?.body).toMatchObject({ model: "gpt-4o-mini", stream: true });
  });

  it("maps the AI SDK's final error to a ProviderError with toProviderError", async () => {
    server = await startServer((_request, response) => {
      sendJson(
        response,
        503,
        { error: { message: "overloaded", type: "server_error" } },
        { "retry-after-ms": "0" },
      );
    });
    const model = createLanguageModel("openai/gpt-4o-mini", env(server.url));
    // maxRetries: 1 makes the SDK wrap its attempts in a RetryError, which must be unwrapped.
    const thrown = await generateText({ model, prompt: "hi", maxRetries: 1 }).catch(
      (error: unknown) => error,
    );
    const error = toProviderError(thrown);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "upstream", status: 503, retryable: true });
    expect(server.requests).toHaveLength(2);
  });
});
