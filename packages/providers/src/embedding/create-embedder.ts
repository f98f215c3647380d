import type { ProviderEnv } from "../env.ts";
import { ProviderError } from "../errors.ts";
import { parseModelId, tryParseModelId } from "../model-id.ts";
import type { RemoteEmbedderOptions } from "./ai-sdk-embedder.ts";
import type { Embedder } from "./embedder.ts";
import { LOCAL_HASH_DIMENSIONS, LocalHashEmbedder } from "./local-hash.ts";
import { createOpenAIEmbedder, openaiEmbeddingDimensions } from "./openai.ts";
import { createWorkersAIEmbedder, workersAIEmbeddingDimensions } from "./workers-ai.ts";

export interface CreateEmbedderOptions extends RemoteEmbedderOptions {
  /**
   * The dataset's vector size. Required for models whose size we do not know; for
   * `text-embedding-3-*` a smaller value shortens the vectors; `local/hash` hashes into any size.
   */
  dimensions?: number;
}

/**
 * The embedder for `modelId` (`local/hash`, `openai/<model>`, `workers-ai/<model>`). Throws
 * `ProviderError("invalid_model")` for ids we cannot serve, including a missing key or binding,
 * so misconfiguration surfaces when the embedder is built rather than mid-ingestion.
 */
export function createEmbedder(
  modelId: string,
  env: ProviderEnv,
  options: CreateEmbedderOptions = {},
): Embedder {
  const { provider, model } = parseModelId(modelId);
  switch (provider) {
    case "local":
      if (model !== "hash") {
        throw new ProviderError(
          "invalid_model",
          `'${modelId}' is not an embedding model; the local one is local/hash`,
        );
      }
      return new LocalHashEmbedder(options.dimensions ?? LOCAL_HASH_DIMENSIONS);
    case "openai":
      return createOpenAIEmbedder(model, env, options);
    case "workers-ai":
      return createWorkersAIEmbedder(model, env, options);
  }
}

/** The vector size of a known embedding model; undefined when unknown or not an embedder. */
export function embeddingDimensions(modelId: string): number | undefined {
  const ref = tryParseModelId(modelId);
  if (!ref) return undefined;
  switch (ref.provider) {
    case "local":
      return ref.model === "hash" ? LOCAL_HASH_DIMENSIONS : undefined;
    case "openai":
      return openaiEmbeddingDimensions(ref.model);
    case "workers-ai":
      return workersAIEmbeddingDimensions(ref.model);
  }
}

/**
 * Whether `modelId` names an embedding model we can call: `local/hash`, or any well-formed
 * `openai/…` or `workers-ai/…` id. Its dimensions may still be unknown (`embeddingDimensions`),
 * in which case the caller must supply them.
 */
export function isSupportedEmbeddingModel(modelId: string): boolean {
  const ref = tryParseModelId(modelId);
  if (!ref) return false;
  return ref.provider !== "local" || ref.model === "hash";
}
