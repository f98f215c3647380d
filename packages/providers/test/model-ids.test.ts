import { describe, expect, it } from "vitest";
import {
  createEmbedder,
  createLanguageModel,
  embeddingDimensions,
  isSupportedEmbeddingModel,
  isSupportedModel,
  ProviderError,
  parseModelId,
} from "../src/index.ts";

function invalidModel(fn: () => unknown): ProviderError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "invalid_model", retryable: false });
    return error as ProviderError;
  }
  throw new Error("expected ProviderError(invalid_model)");
}

describe("model ids", () => {
  it("splits provider/model at the first slash", () => {
    expect(parseModelId("openai/gpt-4o-mini")).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
    });
    expect(parseModelId("workers-ai/@cf/meta/llama-3.1-8b-instruct")).toEqual({
      provider: "workers-ai",
      model: "@cf/meta/llama-3.1-8b-instruct",
    });
    expect(parseModelId("openai/Qwen/Qwen2.5-7B-Instruct").model).toBe("Qwen/Qwen2.5-7B-Instruct");
    expect(parseModelId("openai/llama3.1:8b").model).toBe("llama3.1:8b");
    expect(parseModelId("local/echo")).toEqual({ provider: "local", model: "echo" });
  });

  it("rejects malformed ids with invalid_model", () => {
    for (const id of [
      "",
      "gpt-4o",
      "/gpt-4o",
      "openai/",
      "openai/ gpt",
      "openai/gpt\n4",
      "openai/a/",
      "workers-ai/llama",
      `openai/${"x".repeat(201)}`,
    ]) {
      invalidModel(() => parseModelId(id));
    }
    expect(invalidModel(() => parseModelId("anthropic/claude")).message).toContain("anthropic");
    invalidModel(() => parseModelId(42 as unknown as string));
  });

  it("says which ids are language models", () => {
    expect(isSupportedModel("local/echo")).toBe(true);
    expect(isSupportedModel("openai/gpt-4o-mini")).toBe(true);
    expect(isSupportedModel("workers-ai/@cf/meta/llama-3.1-8b-instruct")).toBe(true);
    expect(isSupportedModel("local/hash")).toBe(false);
    expect(isSupportedModel("local/other")).toBe(false);
    expect(isSupportedModel("mistral/large")).toBe(false);
    expect(isSupportedModel("gpt-4o")).toBe(false);
  });

  it("says which ids are embedding models, with or without a known size", () => {
    expect(isSupportedEmbeddingModel("local/hash")).toBe(true);
    expect(isSupportedEmbeddingModel("openai/text-embedding-3-small")).toBe(true);
    expect(isSupportedEmbeddingModel("openai/nomic-embed-text")).toBe(true);
    expect(isSupportedEmbeddingModel("workers-ai/@cf/baai/bge-m3")).toBe(true);
    expect(isSupportedEmbeddingModel("local/echo")).toBe(false);
    expect(isSupportedEmbeddingModel("cohere/embed-v3")).toBe(false);

    expect(embeddingDimensions("openai/text-embedding-3-small")).toBe(1536);
    expect(embeddingDimensions("openai/text-embedding-3-large")).toBe(3072);
    expect(embeddingDimensions("openai/text-embedding-ada-002")).toBe(1536);
    expect(embeddingDimensions("openai/nomic-embed-text")).toBeUndefined();
    expect(embeddingDimensions("openai/constructor")).toBeUndefined();
    expect(embeddingDimensions("local/echo")).toBeUndefined();
    expect(embeddingDimensions("nonsense")).toBeUndefined();
  });

  it("refuses unknown providers and wrong local models when building", () => {
    expect(invalidModel(() => createEmbedder("cohere/embed-v3", {})).message).toContain("cohere");
    invalidModel(() => createEmbedder("local/echo", {}));
    invalidModel(() => createLanguageModel("local/hash", {}));
    invalidModel(() => createLanguageModel("openai/gpt-4o-mini", {}));
    invalidModel(() => createLanguageModel("workers-ai/@cf/meta/llama-3.1-8b-instruct", {}));
    expect(createLanguageModel("local/echo", {}).modelId).toBe("echo");
    expect(createLanguageModel("openai/gpt-4o-mini", { OPENAI_API_KEY: "k" }).modelId).toBe(
      "gpt-4o-mini",
    );
  });
});
