import type { AiBinding, ProviderEnv } from "@quarry/providers";

/** The provider settings both workers validate from their bindings (`providerConfig`). */
export interface ProviderSettings {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  AI?: Ai | undefined;
}

/**
 * What the providers read, from a worker's validated settings: an empty key or base URL is
 * the same as none (the local stack sets them empty), and Workers AI only when bound.
 */
export function providerEnv(settings: ProviderSettings): ProviderEnv {
  return {
    ...(settings.OPENAI_API_KEY ? { OPENAI_API_KEY: settings.OPENAI_API_KEY } : {}),
    ...(settings.OPENAI_BASE_URL ? { OPENAI_BASE_URL: settings.OPENAI_BASE_URL } : {}),
    // Cloudflare's `Ai` is a superset of the `run` slice the providers use.
    ...(settings.AI ? { AI: settings.AI as unknown as AiBinding } : {}),
  };
}
