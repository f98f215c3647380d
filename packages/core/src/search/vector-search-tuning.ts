import type { DatasetRecord } from "../datasets/dataset-view.ts";

/** pgvector's ceiling for `hnsw.ef_search`. */
export const MAX_EF_SEARCH = 1000;

/** How a filtered vector search runs; see `SemanticSearch.candidatesSql`. */
export const VECTOR_SEARCH_TUNING = {
  /**
   * A filter passed by at most this many rows ranks them all exactly; by more, the HNSW index
   * is searched with the filter (iterative scan). At 100k rows, 1,000 exact distances cost
   * about what the graph walk past 99 rejected rows in 100 does, with recall 1 instead of ~0.94.
   */
  exactFilterRows: 2000,
  /** rows an iterative (filtered) HNSW scan may visit before it gives up */
  maxScanTuples: 50_000,
} as const;

/**
 * The HNSW candidate list size (`hnsw.ef_search`) a dataset's searches use until its own
 * graph has been measured (`calibrateEfSearch`: first at 1,000 graph vectors), and on graphs
 * too small to measure, by embedding model family. Recall at a given list size depends on how
 * the model's vectors are spread far more than on the row count, so the family decides.
 */
export const EF_SEARCH_DEFAULTS = {
  /**
   * `local/*` — the offline hash embedder: each word hashed into signed buckets, so a vector
   * is a bag of words, not a meaning. Texts that share no words are orthogonal, there is no
   * low-dimensional structure for the graph to follow, and a short query's neighbours are many
   * near-ties spread through the graph: the list must be long. Measured on the search
   * benchmark's corpus (384-d, m = 16, ef_construction = 64, native PostgreSQL), its
   * three-word queries reach recall@10 0.97 at 400 on 50k rows (0.94 on 100k); calibration
   * picks 40 at 1–2k rows, 160 at 5k, 250 at 10k, 400 at 20k, 640 at 50k, 1,000 at 100k.
   * Below 1,000 vectors any list of 40+ walks most of the graph.
   */
  local: 400,
  /**
   * `openai/*`, `workers-ai/*` — trained text embeddings lie near a low-dimensional manifold
   * (texts cluster by topic), the case HNSW is built for: published measurements of pgvector
   * and hnswlib on such vectors (e.g. OpenAI embeddings of DBpedia, 1M × 1,536, m = 16) reach
   * recall@10 ≥ 0.95 at list sizes of 40–100. Not measured here (no trained model offline):
   * 100, and the dataset's own measurement replaces it from 1,000 vectors on.
   */
  trained: 100,
} as const;

/** The family default for a model id (`provider/model`). */
export function defaultEfSearch(embeddingModel: string): number {
  return embeddingModel.startsWith("local/")
    ? EF_SEARCH_DEFAULTS.local
    : EF_SEARCH_DEFAULTS.trained;
}

/** The list size a dataset's searches use: its measured value, else its family's default. */
export function datasetEfSearch(
  dataset: Pick<DatasetRecord, "efSearch" | "embeddingModel">,
): number {
  return Math.min(MAX_EF_SEARCH, dataset.efSearch ?? defaultEfSearch(dataset.embeddingModel));
}
