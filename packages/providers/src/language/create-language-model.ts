import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { createWorkersAI } from "workers-ai-provider";
import type { ProviderEnv } from "../env.ts";
import { asWorkersAIBinding } from "../env.ts";
import { ProviderError } from "../errors.ts";
import { parseModelId, tryParseModelId } from "../model-id.ts";
import { openAISettings } from "../openai-settings.ts";
import { EchoLanguageModel } from "./echo.ts";

/** What `generateText`/`streamText` from `ai` take: the AI SDK's v3 model specification. */
export type LanguageModel = LanguageModelV3;

/**
 * The language model for `modelId` (`local/echo`, `openai/<model>`, `workers-ai/<model>`).
 * Throws `ProviderError("invalid_model")` for ids we cannot serve, including a missing key or
 * binding. Calls go through the AI SDK, which retries on its own (`maxRetries` of
 * `generateText`/`streamText`); map what it finally throws with `toProviderError`.
 */
export function createLanguageModel(modelId: string, env: ProviderEnv): LanguageModel {
  const { provider, model } = parseModelId(modelId);
  switch (provider) {
    case "local":
      if (model !== "echo") {
        throw new ProviderError(
          "invalid_model",
          `'${modelId}' is not a language model; the local one is local/echo`,
        );
      }
      return new EchoLanguageModel();
    case "openai":
      // Chat Completions, not the Responses API: every OpenAI-compatible server speaks it.
      return createOpenAI(openAISettings(env)).chat(model);
    case "workers-ai":
      if (!env.AI) {
        throw new ProviderError("invalid_model", `'${modelId}' needs the Workers AI binding (AI)`);
      }
      return createWorkersAI({ binding: asWorkersAIBinding(env.AI) }).chat(model);
  }
}

/** Whether `modelId` names a language model we can call: `local/echo`, `openai/…`, `workers-ai/…`. */
export function isSupportedModel(modelId: string): boolean {
  const ref = tryParseModelId(modelId);
  if (!ref) return false;
  return ref.provider !== "local" || ref.model === "echo";
}
