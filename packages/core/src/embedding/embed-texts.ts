import { createEmbedder, ProviderError } from "@quarry/providers";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import type { ProjectContext } from "../shared/context.ts";
import { upstreamFailure } from "../shared/upstream-failure.ts";

/** Texts per provider call: OpenAI takes up to 2048, but smaller calls fail and retry cheaper. */
export const EMBEDDING_BATCH_SIZE = 128;

/**
 * Embeds texts with the dataset's model, in batches, with the provider layer's retry and
 * backoff on rate limits and 5xx. All or nothing: a provider that stays down is an
 * `upstream_error` and the caller writes no row, so nothing is stored half-embedded.
 */
export async function embedTexts(
  ctx: ProjectContext,
  dataset: Pick<DatasetRecord, "embeddingModel" | "dimensions">,
  texts: string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  if (texts.length === 0) return [];
  try {
    const embedder = createEmbedder(dataset.embeddingModel, ctx.providers ?? {}, {
      dimensions: dataset.dimensions,
    });
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += EMBEDDING_BATCH_SIZE) {
      const batch = texts.slice(i, i + EMBEDDING_BATCH_SIZE);
      const embedded = await embedder.embed(batch, signal ? { signal } : {});
      if (embedded.length !== batch.length) {
        throw new ProviderError(
          "upstream",
          `returned ${embedded.length} vectors for ${batch.length} texts`,
        );
      }
      for (const vector of embedded) {
        if (vector.length !== dataset.dimensions) {
          throw new ProviderError(
            "upstream",
            `returned ${vector.length} dimensions; the dataset stores ${dataset.dimensions}`,
          );
        }
        if (!vector.every(storable)) {
          throw new ProviderError("upstream", "returned a vector component pgvector cannot store");
        }
        vectors.push(vector);
      }
    }
    return vectors;
  } catch (error) {
    throw upstreamFailure(error, `embedding with '${dataset.embeddingModel}'`);
  }
}

/** pgvector stores float4: finite and within its range. */
const FLOAT4_MAX = 3.4028234663852886e38;
const storable = (x: number) => Number.isFinite(x) && Math.abs(x) <= FLOAT4_MAX;
