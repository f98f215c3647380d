import { createWorkersAI } from "workers-ai-provider";
import type { ProviderEnv } from "../env.ts";
import { asWorkersAIBinding } from "../env.ts";
import { ProviderError } from "../errors.ts";
import { AiSdkEmbedder, type RemoteEmbedderOptions } from "./ai-sdk-embedder.ts";
import type { Embedder } from "./embedder.ts";

const WORKERS_AI_EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  "@cf/baai/bge-small-en-v1.5": 384,
  "@cf/baai/bge-base-en-v1.5": 768,
  "@cf/baai/bge-large-en-v1.5": 1024,
  "@cf/baai/bge-m3": 1024,
};

/** Dimensions of a known Workers AI embedding model (name without `workers-ai/`). */
export function workersAIEmbeddingDimensions(model: string): number | undefined {
  return Object.hasOwn(WORKERS_AI_EMBEDDING_DIMENSIONS, model)
    ? WORKERS_AI_EMBEDDING_DIMENSIONS[model]
    : undefined;
}

export interface WorkersAIEmbedderOptions extends RemoteEmbedderOptions {
  /** Required for models not in our table; must match the table otherwise. */
  dimensions?: number;
}

/** `workers-ai/<model>` embeddings through the AI binding (`env.AI.run`). */
export function createWorkersAIEmbedder(
  model: string,
  env: ProviderEnv,
  options: WorkersAIEmbedderOptions = {},
): Embedder {
  const modelId = `workers-ai/${model}`;
  if (!env.AI) {
    throw new ProviderError("invalid_model", `'${modelId}' needs the Workers AI binding (AI)`);
  }
  const known = workersAIEmbeddingDimensions(model);
  const dimensions = options.dimensions ?? known;
  if (dimensions === undefined) {
    throw new ProviderError(
      "invalid_model",
      `the dimensions of '${modelId}' are not known; pass them explicitly`,
    );
  }
  // Workers AI models have one output size; asking for another cannot be honoured.
  if (known !== undefined && dimensions !== known) {
    throw new ProviderError(
      "invalid_model",
      `'${modelId}' always returns ${known} dimensions, not ${dimensions}`,
    );
  }

  // The provider's binding type is Cloudflare's `Ai`; ours is the structural slice of it.
  const workersAI = createWorkersAI({ binding: asWorkersAIBinding(env.AI) });
  return new AiSdkEmbedder({
    ...options,
    modelId,
    dimensions,
    model: workersAI.embedding(model),
  });
}
