import { createApp } from "./app.ts";
import { type Bindings, type Config, envSchema } from "./env.ts";

/**
 * The only file that knows it is a Worker. Bindings are validated once per isolate; a
 * misconfigured deployment fails every request with a 500 that says what is missing.
 */
let config: Config | undefined;
function configOf(env: Bindings): Config {
  if (config) return config;
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid worker configuration: ${problems}`);
  }
  config = parsed.data;
  return config;
}

const app = createApp(configOf);

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Bindings>;
