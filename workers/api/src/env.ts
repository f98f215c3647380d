import { z } from "@hono/zod-openapi";
import {
  DEFAULT_CHARACTERS_PER_FLUSH,
  NEW_GRAPH_ENCODINGS,
  VECTOR_GRAPH_LIMITS,
  type VectorGraphParameters,
} from "@quarry/core";
import { binding, databaseConfig, providerConfig } from "@quarry/worker-kit";

/**
 * The worker's bindings, validated once per isolate at the entry (worker.ts); their types
 * are generated from wrangler.toml (`pnpm types:workers` → worker-configuration.d.ts).
 * Secrets: DATABASE_URL, ADMIN_TOKEN, OPENAI_API_KEY. NEON_LOCAL_PROXY is set only by
 * `pnpm dev`.
 */
export const envSchema = z.object({
  ...databaseConfig,
  ...providerConfig,
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN is required (16+ characters)"),
  EMBEDDING_MODEL: z.string().default("local/hash"),
  ALLOW_PRIVATE_URLS: z
    .enum(["true", "false", ""])
    .optional()
    .transform((v) => v === "true"),
  /**
   * seconds a verified key, a completion's endpoint and a dataset searched or written are
   * trusted per isolate; 0 = off
   */
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  /**
   * characters of row text an isolate writes between emptyings of the GIN pending lists after
   * a reply (core `PendingListFlushes`); 0 = never (the writers and the indexer empty them)
   */
  PENDING_LIST_FLUSH_CHARACTERS: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000_000)
    .default(DEFAULT_CHARACTERS_PER_FLUSH),
  /**
   * HNSW build parameters of new datasets' graphs (pgvector's m, ef_construction); unset: by
   * the embedding model's family (core `VECTOR_GRAPH_DEFAULTS`). `pnpm dev` on PGlite sets the
   * cheap graph: there the indexer grows it on the one session that serves requests.
   */
  VECTOR_GRAPH_M: optionalInt(VECTOR_GRAPH_LIMITS.m),
  VECTOR_GRAPH_EF_CONSTRUCTION: optionalInt(VECTOR_GRAPH_LIMITS.efConstruction),
  /**
   * the precision new datasets' graphs hold vectors in (`vector`, `halfvec`); unset: the
   * family's (half). `pnpm dev` on PGlite sets `vector`, which WASM computes faster.
   */
  VECTOR_GRAPH_ENCODING: z
    .enum(["", ...NEW_GRAPH_ENCODINGS])
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** uploads and large sources are stored, read back and deleted here */
  FILES: binding<R2Bucket>("FILES"),
  /** slices of uploads and large sources, for the ingest worker */
  INGEST_QUEUE: binding<Queue>("INGEST_QUEUE"),
  /** requests to move datasets' vector backlogs into their graphs, for the ingest worker */
  INDEX_QUEUE: binding<Queue>("INDEX_QUEUE"),
});

function optionalInt(limits: { min: number; max: number }) {
  return z
    .union([z.literal(""), z.coerce.number().int().min(limits.min).max(limits.max)])
    .optional()
    .transform((v) => (v === "" ? undefined : v));
}

export type Config = z.infer<typeof envSchema>;

/** The graph parameters new datasets get over their family's: only those the deployment set. */
export function vectorGraphOverrides(config: Config): Partial<VectorGraphParameters> {
  return {
    ...(config.VECTOR_GRAPH_M === undefined ? {} : { m: config.VECTOR_GRAPH_M }),
    ...(config.VECTOR_GRAPH_EF_CONSTRUCTION === undefined
      ? {}
      : { efConstruction: config.VECTOR_GRAPH_EF_CONSTRUCTION }),
    ...(config.VECTOR_GRAPH_ENCODING === undefined
      ? {}
      : { encoding: config.VECTOR_GRAPH_ENCODING }),
  };
}

/** The bindings as wrangler.toml declares them (generated: worker-configuration.d.ts). */
export type Bindings = Env;
