import { type ChatTurn, type CompletionUsage, countTokens } from "@quarry/providers";
import { costOf, priceOf } from "./model-prices.ts";

/** The Completion response's `usage` with the costs beside it (docs/api.md#completion-response). */
export interface CompletionCosts {
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  prompt_cost: number;
  completion_cost: number;
}

/**
 * Token counts as the provider reported them; a provider that reports none (some
 * OpenAI-compatible servers when streaming, a stream cut short) gets an estimate from the
 * local tokenizer, so a log never claims a completion was free of tokens.
 */
export function completionCosts(
  serviceModel: string,
  messages: readonly ChatTurn[],
  completion: string,
  reported: CompletionUsage | undefined,
): CompletionCosts {
  const prompt =
    reported?.inputTokens ?? messages.reduce((sum, m) => sum + countTokens(m.content), 0);
  const output = reported?.outputTokens ?? countTokens(completion);
  const cost = costOf(priceOf(serviceModel), { prompt, completion: output });
  return {
    usage: { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output },
    prompt_cost: cost.prompt,
    completion_cost: cost.completion,
  };
}
