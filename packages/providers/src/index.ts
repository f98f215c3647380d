export type { RemoteEmbedderOptions } from "./embedding/ai-sdk-embedder.ts";
export {
  type CreateEmbedderOptions,
  createEmbedder,
  embeddingDimensions,
  isSupportedEmbeddingModel,
} from "./embedding/create-embedder.ts";
export type { Embedder, EmbedOptions } from "./embedding/embedder.ts";
export {
  LOCAL_HASH_DIMENSIONS,
  LOCAL_HASH_MODEL_ID,
  LocalHashEmbedder,
} from "./embedding/local-hash.ts";
export type { AiBinding, ProviderEnv } from "./env.ts";
export { DEFAULT_OPENAI_BASE_URL } from "./env.ts";
export {
  type HeaderSource,
  isAbortError,
  isTimeoutError,
  ProviderError,
  type ProviderErrorKind,
  type ProviderErrorOptions,
  parseRetryAfter,
  providerErrorFromStatus,
  toProviderError,
} from "./errors.ts";
export {
  type ChatTurn,
  type CompletionCall,
  type CompletionResult,
  type CompletionTimeouts,
  type CompletionUsage,
  DEFAULT_COMPLETION_TIMEOUTS,
} from "./language/completion-call.ts";
export {
  createLanguageModel,
  isSupportedModel,
  type LanguageModel,
} from "./language/create-language-model.ts";
export { EchoLanguageModel, LOCAL_ECHO_MODEL_ID } from "./language/echo.ts";
export { generateCompletion } from "./language/generate-completion.ts";
export { renderPrompt } from "./language/render-prompt.ts";
export { type CompletionPart, streamCompletion } from "./language/stream-completion.ts";
export { countTokens } from "./language/tokens.ts";
export { type ModelRef, PROVIDERS, type ProviderName, parseModelId } from "./model-id.ts";
export { type RetryOptions, withRetry } from "./retry.ts";
export { DEFAULT_TIMEOUT_MS, raceAbort } from "./timeout.ts";
