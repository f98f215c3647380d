import { ProviderError } from "./errors.ts";

export const PROVIDERS = ["openai", "workers-ai", "local"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ModelRef {
  provider: ProviderName;
  /** Everything after the first `/`; may itself contain slashes (`@cf/baai/bge-m3`). */
  model: string;
}

// Generous enough for OpenAI-compatible servers (`Qwen/Qwen2.5-7B-Instruct`, `llama3.1:8b`),
// strict enough to keep whitespace and control characters out of URLs and logs.
const MODEL_NAME = /^[\w@.:+-][\w@.:+/-]{0,199}$/;

/** Splits `provider/model`; throws `ProviderError("invalid_model")` for anything malformed. */
export function parseModelId(modelId: string): ModelRef {
  // Ids arrive from JSON bodies; a non-string must fail here, not as a TypeError below.
  if (typeof modelId !== "string") {
    throw new ProviderError("invalid_model", "model id must be a string");
  }
  const slash = modelId.indexOf("/");
  if (slash <= 0) {
    throw new ProviderError(
      "invalid_model",
      `model id '${modelId}' must look like provider/model (openai/…, workers-ai/…, local/…)`,
    );
  }
  const provider = modelId.slice(0, slash);
  const model = modelId.slice(slash + 1);
  if (!isProviderName(provider)) {
    throw new ProviderError(
      "invalid_model",
      `unknown model provider '${provider}' in '${modelId}'; use openai, workers-ai or local`,
    );
  }
  if (!MODEL_NAME.test(model) || model.endsWith("/")) {
    throw new ProviderError("invalid_model", `malformed model name in '${modelId}'`);
  }
  // Workers AI ids are namespaced (`@cf/…`, `@hf/…`); anything else would only fail later,
  // deep inside a request, with a less helpful message.
  if (provider === "workers-ai" && !/^@(cf|hf)\//.test(model)) {
    throw new ProviderError(
      "invalid_model",
      `Workers AI model ids start with @cf/ or @hf/, got '${model}'`,
    );
  }
  return { provider, model };
}

/** Like `parseModelId` but returns undefined instead of throwing. */
export function tryParseModelId(modelId: string): ModelRef | undefined {
  try {
    return parseModelId(modelId);
  } catch {
    return undefined;
  }
}

function isProviderName(value: string): value is ProviderName {
  return (PROVIDERS as readonly string[]).includes(value);
}
