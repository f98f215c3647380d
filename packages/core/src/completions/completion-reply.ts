import type { CompletionRun } from "./completion-run.ts";
import type { CompletionCosts } from "./completion-usage.ts";
import type { CompletionSearchResult } from "./search-context.ts";

export interface CompletionChoice {
  text: string;
  index: number;
  logprobs: null;
  finish_reason: string;
  /** the log entry's id, for E10 comments and E15 ratings */
  usage_id: string;
  /** only in the chat format (`/chat/completions`), where OpenAI's clients read it */
  message?: { role: "assistant"; content: string };
}

/** E4's JSON reply (docs/api.md#completion-response). */
export interface CompletionResponse extends CompletionCosts {
  id: string;
  object: "text_completion" | "chat.completion";
  created: number;
  /** the model as the provider named it */
  model: string;
  choices: CompletionChoice[];
  /** present when the endpoint searches */
  search_results?: CompletionSearchResult[];
  /** the endpoint's model, as the service knows it (`openai/gpt-4o-mini`) */
  service_model_name: string;
}

export function completionResponse(
  run: CompletionRun,
  reply: { text: string; finishReason: string; modelId: string | undefined },
  costs: CompletionCosts,
  searchResults: CompletionSearchResult[],
): CompletionResponse {
  const choice: CompletionChoice = {
    text: reply.text,
    index: 0,
    logprobs: null,
    finish_reason: reply.finishReason,
    usage_id: run.logId,
  };
  if (run.format === "chat") choice.message = { role: "assistant", content: reply.text };
  return {
    id: run.completionId,
    object: run.format === "chat" ? "chat.completion" : "text_completion",
    created: run.created,
    model: reply.modelId ?? run.upstreamModel,
    choices: [choice],
    usage: costs.usage,
    ...(run.usesSearch ? { search_results: searchResults } : {}),
    prompt_cost: costs.prompt_cost,
    completion_cost: costs.completion_cost,
    service_model_name: run.endpoint.model,
  };
}

/**
 * OpenAI's stream chunks (docs/api.md#completion-streams): `text_completion` with `choices[].text`,
 * or `chat.completion.chunk` with `choices[].delta.content` (the first delta also carries the
 * role). Every choice has its `index` and the `usage_id` of the log entry.
 */
export class ChunkWriter {
  private first = true;

  constructor(private readonly run: CompletionRun) {}

  text(text: string): string {
    const choice =
      this.run.format === "chat"
        ? { index: 0, delta: this.delta(text), logprobs: null, finish_reason: null }
        : { text, index: 0, logprobs: null, finish_reason: null };
    return this.chunk(choice);
  }

  /**
   * The last chunk: the finish reason, the usage as OpenAI's `include_usage` gives it, the
   * costs as the JSON reply has them (fields of ours, like `search_results`), and,
   * when the endpoint searched, `search_results` — a field of ours that OpenAI's clients pass
   * through on the chunk object (they stop reading at `[DONE]`, so the event after it never
   * reaches them).
   */
  finish(
    finishReason: string,
    costs: CompletionCosts,
    searchResults?: CompletionSearchResult[],
  ): string {
    const choice =
      this.run.format === "chat"
        ? { index: 0, delta: {}, logprobs: null, finish_reason: finishReason }
        : { text: "", index: 0, logprobs: null, finish_reason: finishReason };
    return this.chunk(choice, {
      usage: costs.usage,
      prompt_cost: costs.prompt_cost,
      completion_cost: costs.completion_cost,
      ...(searchResults ? { search_results: searchResults } : {}),
    });
  }

  /**
   * After `[DONE]`: the search results again, for readers that keep reading past it
   * (docs/api.md#completion-streams); empty `choices` keeps OpenAI-compatible readers happy.
   */
  searchResults(results: CompletionSearchResult[]): string {
    return JSON.stringify({ choices: [], search_results: results, usage_id: this.run.logId });
  }

  private delta(content: string): { role?: "assistant"; content: string } {
    if (!this.first) return { content };
    this.first = false;
    return { role: "assistant", content };
  }

  private chunk(choice: object, extra: object = {}): string {
    return JSON.stringify({
      id: this.run.completionId,
      object: this.run.format === "chat" ? "chat.completion.chunk" : "text_completion",
      created: this.run.created,
      model: this.run.upstreamModel,
      choices: [{ ...choice, usage_id: this.run.logId }],
      ...extra,
    });
  }
}

export const DONE = "[DONE]";
