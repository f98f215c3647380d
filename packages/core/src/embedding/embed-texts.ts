import { createEmbedder, ProviderError } from "@quarry/providers";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import type { ProjectContext } from "../shared/context.ts";
import { mapConcurrently } from "../shared/map-concurrently.ts";
import { upstreamFailure } from "../shared/upstream-failure.ts";

/** Texts per provider call: OpenAI takes up to 2048, but smaller calls fail and retry cheaper. */
export const EMBEDDING_BATCH_SIZE = 128;

/**
 * Provider calls in flight at once for one `embedTexts`. A remote model answers a batch in
 * hundreds of milliseconds, so an ingest slice's 16 batches one after another would spend
 * seconds waiting where its database work takes a fraction of one; four at a time stays
 * inside a Worker's six simultaneous connections and is a load providers' rate limits expect
 * (a 429 is retried with backoff by the provider layer).
 */
export const EMBEDDING_CONCURRENCY = 4;

/**
 * Embeds texts with the dataset's model, in batches (up to `EMBEDDING_CONCURRENCY` at once,
 * the vectors in input order), with the provider layer's retry and backoff on rate limits and
 * 5xx. All or nothing: a provider that stays down is an `upstream_error` and the caller writes
 * no row, so nothing is stored half-embedded.
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
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += EMBEDDING_BATCH_SIZE) {
      batches.push(texts.slice(i, i + EMBEDDING_BATCH_SIZE));
    }
    const embedded = await mapConcurrently(batches, EMBEDDING_CONCURRENCY, async (batch) =>
      checkedVectors(await embedder.embed(batch, signal ? { signal } : {}), batch, dataset),
    );
    return embedded.flat();
  } catch (error) {
    throw upstreamFailure(error, `embedding with '${dataset.embeddingModel}'`);
  }
}

/** The provider's vectors for `batch`, refused unless there is one storable vector a text. */
function checkedVectors(
  vectors: number[][],
  batch: string[],
  dataset: Pick<DatasetRecord, "dimensions">,
): number[][] {
  if (vectors.length !== batch.length) {
    throw new ProviderError(
      "upstream",
      `returned ${vectors.length} vectors for ${batch.length} texts`,
    );
  }
  for (const vector of vectors) {
    if (vector.length !== dataset.dimensions) {
      throw new ProviderError(
        "upstream",
        `returned ${vector.length} dimensions; the dataset stores ${dataset.dimensions}`,
      );
    }
    if (!vector.every(storable)) {
      throw new ProviderError("upstream", "returned a vector component pgvector cannot store");
    }
  }
  return vectors;
}

/** pgvector stores float4: finite and within its range. */
const FLOAT4_MAX = 3.4028234663852886e38;
const storable = (x: number) => Number.isFinite(x) && Math.abs(x) <= FLOAT4_MAX;
