import type { OpenAIProviderSettings } from "@ai-sdk/openai";
import { DEFAULT_OPENAI_BASE_URL, type ProviderEnv } from "./env.ts";
import { ProviderError } from "./errors.ts";

/**
 * Settings of the AI SDK's OpenAI client. The key is always passed explicitly: left undefined,
 * the SDK would fall back to `process.env.OPENAI_API_KEY` where a `process` exists, which would
 * make behaviour depend on the runtime rather than on the env we were given.
 */
export function openAISettings(env: ProviderEnv): OpenAIProviderSettings {
  if (!env.OPENAI_API_KEY) {
    throw new ProviderError(
      "invalid_model",
      "openai/* models need OPENAI_API_KEY (any non-empty value for servers without auth)",
    );
  }
  return {
    baseURL: env.OPENAI_BASE_URL || DEFAULT_OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY,
    ...(env.fetch ? { fetch: env.fetch } : {}),
  };
}
