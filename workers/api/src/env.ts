import { z } from "@hono/zod-openapi";
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
  /** uploads and large sources are stored, read back and deleted here */
  FILES: binding<R2Bucket>("FILES"),
  /** slices of work for the ingest worker */
  INGEST_QUEUE: binding<Queue>("INGEST_QUEUE"),
});

export type Config = z.infer<typeof envSchema>;

/** The bindings as wrangler.toml declares them (generated: worker-configuration.d.ts). */
export type Bindings = Env;
