import type { EmbeddingModelV3, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { embedMany } from "ai";
import { ProviderError, toProviderError } from "../errors.ts";
import { type RetryOptions, withRetry } from "../retry.ts";
import { DEFAULT_TIMEOUT_MS, deadline, raceAbort } from "../timeout.ts";
import type { Embedder, EmbedOptions } from "./embedder.ts";

/** Tuning shared by the remote embedders. */
export interface RemoteEmbedderOptions {
  /** Deadline of each attempt (not of all retries together); default 30 s. */
  timeoutMs?: number;
  retry?: Omit<RetryOptions, "signal">;
}

export interface AiSdkEmbedderConfig extends RemoteEmbedderOptions {
  modelId: string;
  dimensions: number;
  model: EmbeddingModelV3;
  providerOptions?: SharedV3ProviderOptions;
}

/**
 * An `Embedder` over any AI SDK embedding model, adding what the SDK leaves to us: our retry
 * policy (the SDK's own is off, `maxRetries: 0`, so attempts do not multiply), a deadline per
 * attempt, typed errors, and a check that the vectors fit the column they are going into.
 */
export class AiSdkEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimensions: number;
  private readonly config: AiSdkEmbedderConfig;

  constructor(config: AiSdkEmbedderConfig) {
    this.modelId = config.modelId;
    this.dimensions = config.dimensions;
    this.config = config;
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    const { signal } = opts;
    const { model, providerOptions, timeoutMs = DEFAULT_TIMEOUT_MS, retry } = this.config;

    return withRetry(
      async () => {
        const attemptSignal = deadline(timeoutMs, signal);
        try {
          const { embeddings } = await raceAbort(
            embedMany({
              model,
              values: texts,
              maxRetries: 0,
              abortSignal: attemptSignal,
              ...(providerOptions ? { providerOptions } : {}),
            }),
            attemptSignal,
          );
          this.check(embeddings, texts.length);
          return embeddings;
        } catch (error) {
          // The caller cancelled: that is not a provider failure and must not be retried.
          if (signal?.aborted) throw signal.reason;
          throw toProviderError(error);
        }
      },
      { ...retry, ...(signal ? { signal } : {}) },
    );
  }

  // A wrong-sized or non-numeric vector would fail (or silently corrupt) the pgvector insert
  // far from its cause; reject it here with the model's name.
  private check(embeddings: number[][], expected: number): void {
    if (embeddings.length !== expected) {
      throw new ProviderError(
        "upstream",
        `${this.modelId} returned ${embeddings.length} vectors for ${expected} texts`,
        { retryable: false },
      );
    }
    for (const vector of embeddings) {
      if (!Array.isArray(vector) || vector.length !== this.dimensions) {
        const got = Array.isArray(vector) ? `${vector.length} dimensions` : "a non-array";
        throw new ProviderError(
          "upstream",
          `${this.modelId} returned ${got} where ${this.dimensions} dimensions were expected`,
          { retryable: false },
        );
      }
      for (const value of vector) {
        if (!Number.isFinite(value)) {
          throw new ProviderError("upstream", `${this.modelId} returned a non-finite value`, {
            retryable: false,
          });
        }
      }
    }
  }
}
