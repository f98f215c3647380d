import { z } from "@hono/zod-openapi";
import { CompletionInput, CompletionRequest } from "@quarry/core";
import { documented } from "../openapi.ts";
import { SearchResultSchema } from "./search.ts";

/**
 * E4's body and replies (docs/api.md#e4-completions). The body's schema is core's
 * (`packages/core/src/completions/completion-input.ts`); this file documents it. Fields
 * OpenAI clients add (`model`, `stop`, `stream_options`, …) are accepted and ignored.
 */
const body = CompletionRequest.shape;
documented(body.values, {
  description:
    "Values of the template's and search queries' variables (those search does not fill). The built-in `last_user_message` (the request's last user message) cannot be given here. When a variable is missing, the 400 also names the keys no variable uses; unused keys alone are accepted and ignored.",
  example: { question: "What is a transit?" },
});
documented(body.prompt, {
  description:
    "Completion-style input: appended to a completion endpoint's rendered prompt (one item per line); on a chat endpoint each item is a user message",
});
documented(body.messages, {
  description: "Chat history appended to a chat endpoint's rendered messages",
});
documented(body.stream, {
  description: "Reply with Server-Sent Events in OpenAI's chunk format",
});
documented(body.user, {
  description: "The end user: passed to the provider and logged as the log's user_id",
});
export const CompletionBody = CompletionInput.openapi("CompletionRequest");

const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

export const CompletionSearchResultSchema = SearchResultSchema.extend({
  image_paths: z.record(z.string(), z.string()).nullable(),
  variable: z.string().openapi({ description: "The template variable the result filled" }),
  last_accessed: z.string().openapi({ description: "When it was retrieved (ISO 8601)" }),
}).openapi("CompletionSearchResult");

export const CompletionResponseSchema = z
  .object({
    id: z.string(),
    object: z.enum(["text_completion", "chat.completion"]),
    created: z.number().int(),
    model: z.string().openapi({ description: "The model as the provider named it" }),
    choices: z.array(
      z.object({
        text: z.string(),
        index: z.number().int(),
        logprobs: z.null(),
        finish_reason: z.string(),
        usage_id: z.string().openapi({ description: "The log id, for comments and ratings" }),
        message: z
          .object({ role: z.literal("assistant"), content: z.string() })
          .optional()
          .openapi({ description: "Only on /chat/completions" }),
      }),
    ),
    usage: Usage,
    search_results: z.array(CompletionSearchResultSchema).optional().openapi({
      description:
        "Present when the endpoint searches. Streams carry them on the last chunk before `[DONE]` (and once more after it)",
    }),
    prompt_cost: z.number().openapi({ description: "Dollars, from the model price table" }),
    completion_cost: z.number(),
    service_model_name: z.string().openapi({ example: "openai/gpt-4o-mini" }),
  })
  .openapi("Completion");
