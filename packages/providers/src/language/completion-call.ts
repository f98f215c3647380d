import type { FinishReason, LanguageModelUsage, ModelMessage } from "ai";

/** One message of what the model is asked; the only shapes endpoints produce. */
export interface ChatTurn {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * Deadlines of one model call. A model that never answers, or stops half-way, must not hold
 * a request (or a stream) open: each of these aborts the call with a `timeout` ProviderError.
 */
export interface CompletionTimeouts {
  /** until the first token (for a JSON reply: until the whole reply) */
  firstTokenMs: number;
  /** between two parts of a stream */
  idleMs: number;
  /** the whole call */
  totalMs: number;
}

export const DEFAULT_COMPLETION_TIMEOUTS: CompletionTimeouts = {
  firstTokenMs: 30_000,
  idleMs: 30_000,
  totalMs: 120_000,
};

export interface CompletionCall {
  messages: ChatTurn[];
  temperature?: number;
  maxTokens?: number;
  /** the end user, for providers that take one (OpenAI's `user`) */
  user?: string;
  /** the caller went away: stop, and do not retry */
  signal?: AbortSignal;
  timeouts?: Partial<CompletionTimeouts>;
  /** retries of a failed call before the first token (429, 5xx, network); default 2 */
  retries?: number;
}

/** Token counts as the provider reported them; undefined when it did not. */
export interface CompletionUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

export interface CompletionResult {
  text: string;
  /** OpenAI's vocabulary: `stop`, `length`, `content_filter`, `tool_calls` */
  finishReason: string;
  usage: CompletionUsage;
  /** the model that answered, as the provider names it (e.g. a dated snapshot) */
  modelId: string | undefined;
}

export function timeoutsOf(call: CompletionCall): CompletionTimeouts {
  return { ...DEFAULT_COMPLETION_TIMEOUTS, ...call.timeouts };
}

/** The AI SDK's arguments shared by `generateText` and `streamText`. */
export function sdkArguments(call: CompletionCall) {
  const messages: ModelMessage[] = call.messages.map((m) => ({ role: m.role, content: m.content }));
  return {
    messages,
    // Endpoints put system messages in `messages` on purpose: a template's, or the caller's
    // history, where they stand (the SDK's `system` option would move them to the front).
    // Saying so silences the SDK's console warning for these calls only.
    ...(messages.some((m) => m.role === "system") ? { allowSystemInMessages: true } : {}),
    ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
    ...(call.maxTokens !== undefined ? { maxOutputTokens: call.maxTokens } : {}),
    ...(call.user !== undefined ? { providerOptions: { openai: { user: call.user } } } : {}),
    // Retries are ours (`withRetry`: short jittered backoff, Retry-After honoured); the SDK's
    // start at 2 s and would also retry a stream we already started to forward.
    maxRetries: 0,
  };
}

export function toUsage(usage: LanguageModelUsage | undefined): CompletionUsage {
  return { inputTokens: usage?.inputTokens, outputTokens: usage?.outputTokens };
}

/** The AI SDK's finish reasons in OpenAI's words, which is what our replies speak. */
export function openAIFinishReason(reason: FinishReason, raw: string | undefined): string {
  switch (reason) {
    case "stop":
    case "length":
      return reason;
    case "content-filter":
      return "content_filter";
    case "tool-calls":
      return "tool_calls";
    default:
      return raw ?? "stop";
  }
}
