import { generateText } from "ai";
import { toProviderError } from "../errors.ts";
import { withRetry } from "../retry.ts";
import { deadline } from "../timeout.ts";
import {
  type CompletionCall,
  type CompletionResult,
  openAIFinishReason,
  sdkArguments,
  timeoutsOf,
  toUsage,
} from "./completion-call.ts";
import type { LanguageModel } from "./create-language-model.ts";

/**
 * One completion as a whole, through the AI SDK's `generateText`. Failures are
 * `ProviderError`s; retryable ones (429, 5xx, network, timeout) are retried `call.retries`
 * times with backoff. Each attempt has `firstTokenMs` (the reply arrives at once) capped by
 * what is left of `totalMs`.
 */
export async function generateCompletion(
  model: LanguageModel,
  call: CompletionCall,
): Promise<CompletionResult> {
  const timeouts = timeoutsOf(call);
  const started = Date.now();
  return withRetry(
    async () => {
      const left = timeouts.totalMs - (Date.now() - started);
      const signal = deadline(Math.max(1, Math.min(timeouts.firstTokenMs, left)), call.signal);
      try {
        const result = await generateText({ model, ...sdkArguments(call), abortSignal: signal });
        return {
          text: result.text,
          finishReason: openAIFinishReason(result.finishReason, result.rawFinishReason),
          usage: toUsage(result.usage),
          modelId: result.response.modelId,
        };
      } catch (error) {
        // The caller's own abort is not the provider's failure: rethrow it as it came.
        if (call.signal?.aborted) throw call.signal.reason;
        throw toProviderError(error);
      }
    },
    { retries: call.retries ?? 2, ...(call.signal ? { signal: call.signal } : {}) },
  );
}
