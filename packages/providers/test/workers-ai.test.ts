import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import {
  type AiBinding,
  createEmbedder,
  createLanguageModel,
  embeddingDimensions,
  ProviderError,
} from "../src/index.ts";

interface RunCall {
  model: string;
  input: unknown;
  options: unknown;
}

/**
 * A stand-in for `env.AI`: the binding's own interface (`run(model, input, options)`), not our
 * internals. Each call is recorded and answered by `reply` (or fails if it throws).
 */
function fakeBinding(reply: (call: RunCall, index: number) => unknown) {
  const calls: RunCall[] = [];
  const binding: AiBinding = {
    async run(model, input, options) {
      const call = { model, input, options };
      calls.push(call);
      return reply(call, calls.length - 1);
    },
  };
  return { binding, calls };
}

function bgeVectors(call: RunCall, dimensions = 384): { shape: number[]; data: number[][] } {
  const { text } = call.input as { text: string[] };
  const data = text.map((_, row) => Array.from({ length: dimensions }, (_, i) => row + i / 1000));
  return { shape: [data.length, dimensions], data };
}

const fastRetry = { baseMs: 2, maxMs: 10 };

describe("workers-ai embeddings", () => {
  it("runs the model on the binding with the texts and returns its data", async () => {
    const { binding, calls } = fakeBinding((call) => bgeVectors(call));
    const embedder = createEmbedder("workers-ai/@cf/baai/bge-small-en-v1.5", { AI: binding });

    const vectors = await embedder.embed(["first", "second"]);

    expect(embedder.modelId).toBe("workers-ai/@cf/baai/bge-small-en-v1.5");
    expect(embedder.dimensions).toBe(384);
    expect(vectors).toHaveLength(2);
    expect(vectors[1]?.[0]).toBe(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.model).toBe("@cf/baai/bge-small-en-v1.5");
    expect(calls[0]?.input).toEqual({ text: ["first", "second"] });
  });

  it("knows the sizes of the bge models", () => {
    expect(embeddingDimensions("workers-ai/@cf/baai/bge-small-en-v1.5")).toBe(384);
    expect(embeddingDimensions("workers-ai/@cf/baai/bge-base-en-v1.5")).toBe(768);
    expect(embeddingDimensions("workers-ai/@cf/baai/bge-large-en-v1.5")).toBe(1024);
    expect(embeddingDimensions("workers-ai/@cf/baai/bge-m3")).toBe(1024);
    expect(embeddingDimensions("workers-ai/@cf/unknown/model")).toBeUndefined();
  });

  it("retries when Workers AI is out of capacity (3040)", async () => {
    const { binding, calls } = fakeBinding((call, index) => {
      if (index === 0) throw new Error("3040: Capacity temporarily exceeded, please try again.");
      return bgeVectors(call, 768);
    });
    const embedder = createEmbedder(
      "workers-ai/@cf/baai/bge-base-en-v1.5",
      { AI: binding },
      { retry: fastRetry },
    );
    const [vector] = await embedder.embed(["busy"]);
    expect(vector).toHaveLength(768);
    expect(calls).toHaveLength(2);
  });

  it("does not retry an error the binding will repeat", async () => {
    const { binding, calls } = fakeBinding(() => {
      throw new Error("5007: No such model @cf/baai/bge-small-en-v1.5 or task");
    });
    const embedder = createEmbedder(
      "workers-ai/@cf/baai/bge-small-en-v1.5",
      { AI: binding },
      { retry: fastRetry },
    );
    const error = await embedder.embed(["x"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "upstream", status: 400, retryable: false });
    expect(calls).toHaveLength(1);
  });

  it("times out a binding call that never settles", async () => {
    const { binding, calls } = fakeBinding(() => new Promise(() => {}));
    const embedder = createEmbedder(
      "workers-ai/@cf/baai/bge-small-en-v1.5",
      { AI: binding },
      { timeoutMs: 50, retry: { ...fastRetry, retries: 1 } },
    );
    const error = await embedder.embed(["x"]).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout", retryable: true });
    expect(calls).toHaveLength(2);
  });

  it("needs the binding, and a size for models it does not know", () => {
    expect(() => createEmbedder("workers-ai/@cf/baai/bge-m3", {})).toThrow(/binding/);
    const { binding } = fakeBinding(() => ({}));
    expect(() => createEmbedder("workers-ai/@cf/some/embedder", { AI: binding })).toThrow(
      /dimensions/,
    );
    expect(() =>
      createEmbedder("workers-ai/@cf/baai/bge-m3", { AI: binding }, { dimensions: 512 }),
    ).toThrow(/1024/);
    expect(
      createEmbedder("workers-ai/@cf/some/embedder", { AI: binding }, { dimensions: 256 })
        .dimensions,
    ).toBe(256);
  });
});

describe("workers-ai language models", () => {
  it("generates text through the binding", async () => {
    const { binding, calls } = fakeBinding(() => ({
      response: "Hello from Workers AI.",
      usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
    }));
    const model = createLanguageModel("workers-ai/@cf/meta/llama-3.1-8b-instruct", { AI: binding });

    const result = await generateText({ model, prompt: "Say hello.", maxRetries: 0 });

    expect(result.text).toBe("Hello from Workers AI.");
    expect(result.usage).toMatchObject({ inputTokens: 7, outputTokens: 4 });
    expect(calls[0]?.model).toBe("@cf/meta/llama-3.1-8b-instruct");
    expect(calls[0]?.input).toMatchObject({ messages: [{ role: "user", content: "Say hello." }] });
  });
});
