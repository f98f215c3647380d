import { z } from "@hono/zod-openapi";
import {
  CommentOnLogInput,
  DEFAULT_LOG_PAGE_SIZE,
  ExportLogsInput,
  ListLogsInput,
  LogFiltersInput,
  MAX_LOG_PAGE_SIZE,
  RateLogsInput,
} from "@quarry/core";
import { EndpointParams } from "./management.ts";

/**
 * E7, E10, E15 and the log export (docs/api.md#logs). The request schemas are the domain's
 * (`packages/core/src/logs/*-input.ts`); here they only gain their OpenAPI descriptions.
 */
export const LogParams = EndpointParams.extend({
  log_id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "log_id", in: "path" }, description: "Log id (usage_id)" }),
});

const filterFields = LogFiltersInput.shape;

/** E7's filters with their OpenAPI descriptions; the export takes the same ones. */
const filterParams = {
  rating: filterFields.rating.openapi({
    description: "positive, negative or unrated (no rating yet)",
  }),
  has_comments: filterFields.has_comments.openapi({
    description: "true: only logs with at least one comment (E10); false: only logs without",
  }),
  since: filterFields.since.openapi({
    description:
      "ISO 8601 date or date-time, inclusive: logs created at or after it (no offset means UTC)",
    example: "2024-05-01T00:00:00Z",
  }),
  until: filterFields.until.openapi({
    description:
      "ISO 8601 date or date-time, inclusive: logs created at or before it (no offset means UTC)",
    example: "2024-05-31T23:59:59.999Z",
  }),
  user: filterFields.user.openapi({
    description: "The log's user: the calling key's id, or the `user` the completion request gave",
  }),
  status: filterFields.status.openapi({
    description: "HTTP status of the completion: 200, or the error it ended with (e.g. 502)",
  }),
};

export const ListLogsQuery = ListLogsInput.extend({
  page: ListLogsInput.shape.page.openapi({ description: "From 1; default 1" }),
  page_size: ListLogsInput.shape.page_size.openapi({
    description: `Default ${DEFAULT_LOG_PAGE_SIZE}, at most ${MAX_LOG_PAGE_SIZE}`,
  }),
  after: ListLogsInput.shape.after.openapi({
    description:
      "A log id of this endpoint: the page starts after it in the listing's order (older logs, or as old with a smaller id). Pass the last log of a page to get the next; `page` then counts from there",
    example: "7d3f5a2e-8c1b-4e9a-9f6d-2b4c8e1a0f37",
  }),
  ...filterParams,
});

export const ExportLogsQuery = ExportLogsInput.extend({
  format: ExportLogsInput.shape.format.openapi({
    description: "jsonl (JSON Lines, the default) or csv (RFC 4180, with a header row)",
  }),
  ...filterParams,
});

export const LogCommentSchema = z
  .object({ name: z.string(), email: z.string(), comment: z.string(), created_at: z.string() })
  .openapi("LogComment");

export const LogListingSchema = z
  .object({
    id: z.string(),
    user_id: z.string(),
    endpoint_id: z.string(),
    timestamp: z.object({ value: z.string() }),
    model: z.string(),
    prompt: z.string().openapi({ description: "JSON text of the prompt or messages" }),
    completion: z.string(),
    positive_rating: z.boolean().nullable(),
    values: z.record(z.string(), z.unknown()).nullable(),
    search_results: z.string().openapi({ description: "JSON text of the search results" }),
    status: z.string().openapi({ description: 'JSON text: {"status": <HTTP status>, "error"?}' }),
    deployment_id: z.number().int(),
    latency: z.number().nullable().openapi({ description: "Milliseconds" }),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    cost: z.number().openapi({ description: "prompt_cost + completion_cost, in dollars" }),
    comments: z.array(LogCommentSchema).openapi({ description: "E10's comments, oldest first" }),
  })
  .openapi("Log");

export const RateLogsBody = RateLogsInput.openapi("RateLogs", {
  description:
    "The single form (usage_id, positive_rating) or the batch form (logs, all or nothing)",
});

export const LogRatingSchema = z
  .object({
    user_id: z.string(),
    project_id: z.string(),
    timestamp: z.string(),
    provider_name: z.string(),
    cost: z.number(),
    prompt: z.string(),
    completion: z.string(),
    id: z.string(),
    date: z.string(),
    rating: z.number().openapi({ description: "1 positive, -1 negative, 0 not rated" }),
    temp: z.number(),
    completions: z.null(),
    managed: z.boolean(),
    positive_rating: z.boolean().nullable(),
    template_id: z.string().nullable(),
    values: z.record(z.string(), z.unknown()),
  })
  .openapi("LogRating");

export const CommentBody = CommentOnLogInput.extend({
  name: CommentOnLogInput.shape.name.openapi({ description: "Default: the key's name" }),
  email: CommentOnLogInput.shape.email.openapi({ description: "Default: the key's email" }),
}).openapi("Comment");

export const LogWithCommentsSchema = z
  .object({
    prompt: z.string(),
    completion: z.string(),
    id: z.string(),
    date: z.string(),
    positive_rating: z.boolean().nullable(),
    variant_id: z.string(),
    comments: z.array(LogCommentSchema),
  })
  .openapi("LogWithComments");
