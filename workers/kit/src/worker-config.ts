import { z } from "zod";
import { DATABASE_TIMEOUT_SECONDS } from "./database.ts";

/**
 * The settings both workers read, as zod fields each worker's binding schema spreads
 * (workers/api/src/env.ts, workers/ingest/src/env.ts). Secrets: DATABASE_URL,
 * OPENAI_API_KEY (declared under `[secrets]` in the wrangler configs, so `wrangler types`
 * knows them). NEON_LOCAL_PROXY is set only by the local stack.
 */
export const databaseConfig = {
  DATABASE_URL: z.string().min(1, "DATABASE_URL is required (a Neon connection string)"),
  NEON_LOCAL_PROXY: z.string().optional(),
  /** a database connect or query unanswered this long fails the request or the slice */
  DATABASE_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(DATABASE_TIMEOUT_SECONDS.min)
    .max(DATABASE_TIMEOUT_SECONDS.max)
    .default(DATABASE_TIMEOUT_SECONDS.default),
};

export const providerConfig = {
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  /** absent on the local stack, whose offline providers stand in for Workers AI */
  AI: binding<Ai>("AI").optional(),
};

/** A Cloudflare binding: an object the runtime put there (its methods are its contract). */
export function binding<T>(name: string) {
  return z.custom<T>((value) => typeof value === "object" && value !== null, {
    message: `the ${name} binding is missing (see the worker's wrangler.toml)`,
  });
}

/**
 * Validates a worker's bindings once per isolate (they do not change while it lives). A
 * misconfigured deployment fails every invocation with an error that names each problem.
 */
export function bindingsValidator<S extends z.ZodType>(schema: S): (env: unknown) => z.output<S> {
  let validated: z.output<S> | undefined;
  return (env) => {
    if (validated !== undefined) return validated;
    const parsed = schema.safeParse(env);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
        .join("; ");
      throw new Error(`Invalid worker configuration: ${problems}`);
    }
    validated = parsed.data;
    return parsed.data;
  };
}
