import type { VectorGraphEncoding } from "@quarry/db";
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
   * near-ties spread through the graph: the list must be long. Below 1,000 vectors any list
   * of 40+ walks most of the graph; from there on calibration measures it (on the search
   * benchmark's corpus at 100k rows: 250 on its searches, 400 on phrases of its texts).
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
  return EF_SEARCH_DEFAULTS[modelFamily(embeddingModel)];
}

/**
 * How a new dataset's graph is built: how HNSW links its vectors (pgvector's `m` and
 * `ef_construction`) and the precision it holds them in (`encoding`; the third encoding,
 * `halfvec_unnormalized`, is only ever the one of datasets older than the choice).
 */
export interface VectorGraphParameters {
  m: number;
  efConstruction: number;
  encoding: NewGraphEncoding;
}

export type NewGraphEncoding = Exclude<VectorGraphEncoding, "halfvec_unnormalized">;
export const NEW_GRAPH_ENCODINGS = ["vector", "halfvec"] as const satisfies NewGraphEncoding[];

/** HNSW's limit for full-precision `vector`; `halfvec` goes to 4,000. */
export const MAX_FULL_PRECISION_GRAPH_DIMENSIONS = 2000;

/**
 * The HNSW build parameters of a new dataset's graph, by embedding model family. A denser
 * graph (more links per vector, `m`; a longer candidate list while linking, `ef_construction`)
 * costs more to build and needs a shorter list at search time for the same recall.
 */
export const VECTOR_GRAPH_DEFAULTS: Record<ModelFamily, VectorGraphParameters> = {
  /**
   * `local/*`: a denser graph than pgvector's defaults, for its near-ties. Measured on 100k
   * vectors of the search benchmark's corpus (native PostgreSQL, one-pass builds, 100 queries
   * of three topic words, as searches are and as calibration now measures them), recall@10 and
   * the statement's p50 at list sizes 250 / 500 / 1,000:
   * - m 16 / ef_construction 64: 0.90 / 0.953 / 0.982, 4.7 / 6.7 / 12.4 ms; built in 50 s;
   * - m 24 / ef_construction 128: 0.974 / 0.988 / 0.991, 6.4 / 9.2 / 13.9 ms; built in 117 s;
   * - m 24 / ef_construction 200: 0.978 at 250 (6.7 ms); built in 156 s;
   * - m 32 / ef_construction 128: 0.98 at 250 (9.1 ms); built in 147 s.
   * Calibrated (recall@10 ≥ 0.97 on the dataset's searches) m 16 needs 1,000 and m 24 / 128
   * needs 250: through the API, E2 went from 19.3 to 12.9 ms (p50, paired with the raw
   * statement) and from 79 to 121 searches/s from 8 clients, and the mixed load from 97 to 115
   * requests/s, although each graph insert costs twice as much. With phrases of stored texts
   * (calibration's queries before a dataset has been searched) m 16 reached only 0.89 at the
   * ceiling, m 24 / 128 0.973 at 400.
   * ef_construction 256 since 2026-11-27: on the same corpus (one-pass builds, 400 queries
   * of the kind the benchmark searches with, recall@10 at list sizes 160 / 200 / 250 / 320),
   * - m 24 / ef_construction 128: 0.939 / 0.955 / 0.972 / 0.982; built in 59 s;
   * - m 24 / ef_construction 200: 0.955 / 0.967 / 0.978 / 0.982; built in 79 s;
   * - m 24 / ef_construction 256: 0.957 / 0.971 / 0.979 / 0.985; built in 92 s;
   * (an earlier build on 300 of those queries: 128 gave 0.954 at 200 and 0.964 at 250, 256
   * gave 0.974 at 200), with about the same time a search at each size. The longer linking list
   * moves the recall curve down by one size of the calibration's ladder: the 0.95 promised with
   * confidence over 128 searches (`calibrateEfSearch`, which asks ~0.963 of the sample there)
   * takes 200 instead of 250–320, i.e. 20–35 % less of the walk that is most of an E2, for
   * graph inserts ~1.5 times as costly. m 32 / ef_construction 256 reached 0.975 at 160 (as
   * 24 / 256 at 200) but built in 118 s.
   * `pnpm dev` on PGlite sets 16 / 64 (`VECTOR_GRAPH_M`, `VECTOR_GRAPH_EF_CONSTRUCTION`):
   * there the indexer grows graphs on the one session that serves requests, and 24 / 128
   * graphs grew half as fast and took 22 % longer to make a 4 MB CSV ready.
   *
   * Half precision (`halfvec`) since 2026-12-03, for both families: on that corpus (100k
   * vectors, m 24 / ef_construction 256, 200 queries, timed on the server) a query took
   * 6.1–6.3 ms at a list of 250 with recall@10 0.980, against 7.2–7.5 ms and 0.975 at full
   * precision; 5.0–5.2 against 5.9–6.9 ms at 200 (0.971 against 0.967); the index is 116 MB
   * against 195, and graph inserts ~15 % cheaper (30k vectors, native). Recall is measured
   * against full-precision neighbours (`calibrateEfSearch`), so a model whose vectors lose more
   * in half precision gets a longer list. `pnpm dev` on PGlite sets `vector`: there, in WASM
   * without the CPU's half-precision conversion, a 20k-vector build took 24 s against 5.2 and a
   * query 1.7 against 1.2 ms.
   */
  local: { m: 24, efConstruction: 256, encoding: "halfvec" },
  /** trained embeddings: pgvector's defaults, which their published recall figures use */
  trained: { m: 16, efConstruction: 64, encoding: "halfvec" },
};

/** The family default for a model id (`provider/model`). */
export function defaultVectorGraph(embeddingModel: string): VectorGraphParameters {
  return VECTOR_GRAPH_DEFAULTS[modelFamily(embeddingModel)];
}

/** What pgvector accepts for `m` and `ef_construction` (which must also be at least 2 × m). */
export const VECTOR_GRAPH_LIMITS = {
  m: { min: 2, max: 100 },
  efConstruction: { min: 4, max: 1000 },
} as const;

/**
 * A new dataset's graph parameters: its family's, with what the deployment chose over them
 * (`VECTOR_GRAPH_M`, `VECTOR_GRAPH_EF_CONSTRUCTION`, `VECTOR_GRAPH_ENCODING`). A list shorter
 * than twice the links is raised to it, as pgvector requires, and a graph of more dimensions
 * than full precision can index is in half precision.
 */
export function vectorGraphFor(
  embeddingModel: string,
  dimensions: number,
  overrides: Partial<VectorGraphParameters> = {},
): VectorGraphParameters {
  const graph = { ...defaultVectorGraph(embeddingModel), ...overrides };
  return {
    m: graph.m,
    efConstruction: Math.max(graph.efConstruction, 2 * graph.m),
    encoding: dimensions > MAX_FULL_PRECISION_GRAPH_DIMENSIONS ? "halfvec" : graph.encoding,
  };
}

type ModelFamily = "local" | "trained";

function modelFamily(embeddingModel: string): ModelFamily {
  return embeddingModel.startsWith("local/") ? "local" : "trained";
}

/** The list size a dataset's searches use: its measured value, else its family's default. */
export function datasetEfSearch(
  dataset: Pick<DatasetRecord, "efSearch" | "embeddingModel">,
): number {
  return Math.min(MAX_EF_SEARCH, dataset.efSearch ?? defaultEfSearch(dataset.embeddingModel));
}
