import { createOpenAI } from "@ai-sdk/openai";
import type { ProviderEnv } from "../env.ts";
import { ProviderError } from "../errors.ts";
import { openAISettings } from "../openai-settings.ts";
import { AiSdkEmbedder, type RemoteEmbedderOptions } from "./ai-sdk-embedder.ts";
import type { Embedder } from "./embedder.ts";

interface OpenAIEmbeddingModelInfo {
  dimensions: number;
  /** Accepts the `dimensions` request parameter (Matryoshka shortening). */
  shortenable: boolean;
}

const OPENAI_EMBEDDING_MODELS: Readonly<Record<string, OpenAIEmbeddingModelInfo>> = {
  "text-embedding-3-small": { dimensions: 1536, shortenable: true },
  "text-embedding-3-large": { dimensions: 3072, shortenable: true },
  "text-embedding-ada-002": { dimensions: 1536, shortenable: false },
};

/** Native dimensions of a known OpenAI embedding model (name without `openai/`). */
export function openaiEmbeddingDimensions(model: string): number | undefined {
  return Object.hasOwn(OPENAI_EMBEDDING_MODELS, model)
    ? OPENAI_EMBEDDING_MODELS[model]?.dimensions
    : undefined;
}

export interface OpenAIEmbedderOptions extends RemoteEmbedderOptions {
  /**
   * For `text-embedding-3-*`: shorter vectors, requested from the API. For models we do not
   * know (other OpenAI-compatible servers): their size, which is then required.
   */
  dimensions?: number;
}

/** `openai/<model>` embeddings through any OpenAI-compatible `/embeddings` endpoint. */
export function createOpenAIEmbedder(
  model: string,
  env: ProviderEnv,
  options: OpenAIEmbedderOptions = {},
): Embedder {
  const modelId = `openai/${model}`;
  const info = Object.hasOwn(OPENAI_EMBEDDING_MODELS, model)
    ? OPENAI_EMBEDDING_MODELS[model]
    : undefined;
  const dimensions = options.dimensions ?? info?.dimensions;
  if (dimensions === undefined) {
    throw new ProviderError(
      "invalid_model",
      `the dimensions of '${modelId}' are not known; pass them explicitly`,
    );
  }
  // Only ask the server to shorten when it can and when it changes anything: other
  // OpenAI-compatible servers often reject the parameter outright.
  const shorten = info !== undefined && dimensions !== info.dimensions;
  if (shorten && !info.shortenable) {
    throw new ProviderError(
      "invalid_model",
      `'${modelId}' always returns ${info.dimensions} dimensions, not ${dimensions}`,
    );
  }
  if (shorten && dimensions > info.dimensions) {
    throw new ProviderError(
      "invalid_model",
      `'${modelId}' has at most ${info.dimensions} dimensions, not ${dimensions}`,
    );
  }

  const provider = createOpenAI(openAISettings(env));
  return new AiSdkEmbedder({
    ...options,
    modelId,
    dimensions,
    model: provider.embedding(model),
    ...(shorten ? { providerOptions: { openai: { dimensions } } } : {}),
  });
}
