/**
 * What a model costs, in US dollars per million tokens, input (prompt) and output
 * (completion). `prompt_cost` and `completion_cost` of a completion (and `cost` in a log's
 * rating form) come from here.
 *
 * To price another model, add a line: the key is the service model name without the
 * provider's version suffix (`openai/gpt-4o-mini` also prices `openai/gpt-4o-mini-2024-07-18`:
 * the longest key that the model name starts with, followed by `-` or nothing, wins). A model
 * that is not listed costs 0, as does `local/echo`. Prices are list prices as published by
 * the providers (OpenAI's and Cloudflare's pricing pages, 2025); check them before relying
 * on a figure for billing.
 */
export interface ModelPrice {
  /** dollars per 1M prompt tokens */
  input: number;
  /** dollars per 1M completion tokens */
  output: number;
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  "local/echo": { input: 0, output: 0 },
  "openai/gpt-5": { input: 1.25, output: 10 },
  "openai/gpt-5-mini": { input: 0.25, output: 2 },
  "openai/gpt-5-nano": { input: 0.05, output: 0.4 },
  "openai/gpt-4.1": { input: 2, output: 8 },
  "openai/gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "openai/gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "openai/gpt-4o": { input: 2.5, output: 10 },
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  "openai/gpt-4-turbo": { input: 10, output: 30 },
  "openai/gpt-4": { input: 30, output: 60 },
  "openai/gpt-3.5-turbo": { input: 0.5, output: 1.5 },
  "openai/gpt-3.5-turbo-instruct": { input: 1.5, output: 2 },
  "openai/o1": { input: 15, output: 60 },
  "openai/o3": { input: 2, output: 8 },
  "openai/o3-mini": { input: 1.1, output: 4.4 },
  "openai/o4-mini": { input: 1.1, output: 4.4 },
  "workers-ai/@cf/meta/llama-3.1-8b-instruct": { input: 0.282, output: 0.827 },
  "workers-ai/@cf/meta/llama-3.1-8b-instruct-fast": { input: 0.045, output: 0.384 },
  "workers-ai/@cf/meta/llama-3.3-70b-instruct-fp8-fast": { input: 0.293, output: 2.253 },
  "workers-ai/@cf/mistral/mistral-7b-instruct-v0.1": { input: 0.11, output: 0.19 },
};

const FREE: ModelPrice = { input: 0, output: 0 };

/** The price of `model` (a service model name such as `openai/gpt-4o-mini`); 0 when unknown. */
export function priceOf(
  model: string,
  prices: Readonly<Record<string, ModelPrice>> = MODEL_PRICES,
): ModelPrice {
  const exact = prices[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    if (model.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) {
      best = key;
    }
  }
  return best === undefined ? FREE : (prices[best] ?? FREE);
}

/** Dollars for these token counts, rounded to a millionth of a cent (no float dust). */
export function costOf(
  price: ModelPrice,
  tokens: { prompt: number; completion: number },
): { prompt: number; completion: number } {
  const dollars = (count: number, perMillion: number) =>
    Math.round(count * perMillion * 100) / 100 / 1e6;
  return {
    prompt: dollars(tokens.prompt, price.input),
    completion: dollars(tokens.completion, price.output),
  };
}
