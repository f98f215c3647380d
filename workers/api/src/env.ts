import { z } from "@hono/zod-openapi";
import { DATABASE_TIMEOUT_SECONDS } from "@quarry/worker-kit";

/**
 * The worker's bindings, validated once per isolate at the entry (worker.ts). Secrets:
 * DATABASE_URL, ADMIN_TOKEN, OPENAI_API_KEY. NEON_LOCAL_PROXY is set only by `pnpm dev`.
 */
export const envSchema = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL is required (a Neon connection string)"),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN is required (16+ characters)"),
  EMBEDDING_MODEL: z.string().default("local/hash"),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  ALLOW_PRIVATE_URLS: z
    .enum(["true", "false", ""])
    .optional()
    .transform((v) => v === "true"),
  NEON_LOCAL_PROXY: z.string().optional(),
  /** a database connect or query unanswered this long fails the request (500) */
  DATABASE_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(DATABASE_TIMEOUT_SECONDS.min)
    .max(DATABASE_TIMEOUT_SECONDS.max)
    .default(DATABASE_TIMEOUT_SECONDS.default),
  /** seconds a verified key and a completion's endpoint are trusted per isolate; 0 = off */
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
});

export type Config = z.infer<typeof envSchema>;

export interface Bindings {
  DATABASE_URL: string;
  ADMIN_TOKEN: string;
  EMBEDDING_MODEL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  ALLOW_PRIVATE_URLS?: string;
  NEON_LOCAL_PROXY?: string;
  AUTH_CACHE_SECONDS?: string;
  DATABASE_TIMEOUT_SECONDS?: string;
  FILES: R2Bucket;
  INGEST_QUEUE: Queue<unknown>;
  AI?: Ai;
  /** static assets (wrangler.toml `[assets]`): the pinned Scalar bundle behind /docs */
  ASSETS: Fetcher;
}
