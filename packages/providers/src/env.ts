/**
 * The slice of the Workers AI binding (`env.AI`) we use, declared structurally so this package
 * needs no Cloudflare types and tests can pass a plain object.
 */
export interface AiBinding {
  run(model: string, input: unknown, options?: unknown): Promise<unknown>;
}

/** What the providers read from the environment; each worker passes its own bindings/vars. */
export interface ProviderEnv {
  OPENAI_API_KEY?: string;
  /** Any OpenAI-compatible server; defaults to `https://api.openai.com/v1`. */
  OPENAI_BASE_URL?: string;
  AI?: AiBinding;
  /** Replaces the global fetch for `openai/*` calls (e.g. to route through a proxy). */
  fetch?: typeof fetch;
}

/**
 * `workers-ai-provider` types its binding as Cloudflare's full `Ai` class, but only calls
 * `run`; our structural slice is what it actually uses.
 */
export function asWorkersAIBinding<T>(binding: AiBinding): T {
  return binding as unknown as T;
}

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
