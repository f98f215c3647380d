import { z } from "@hono/zod-openapi";
import { EndpointParams } from "./management.ts";

/**
 * E7, E10 and E15 (the log forms of docs/api.md#logs); the domain validates bodies again
 * (`packages/core/src/logs`).
 */
export const LogParams = EndpointParams.extend({
  log_id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "log_id", in: "path" }, description: "Log id (usage_id)" }),
});

export const ListLogsQuery = z.object({
  page: z.coerce.number().int().min(1).optional().openapi({ description: "From 1; default 1" }),
  page_size: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .openapi({ description: "Default 50, at most 1000" }),
});

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
  })
  .openapi("Log");

const Rating = z.object({ usage_id: z.string(), positive_rating: z.boolean().nullable() });

export const RateLogsBody = z
  .object({
    logs: z.array(Rating).optional().openapi({ description: "Batch form (all or nothing)" }),
    usage_id: z.string().optional().openapi({ description: "Single form" }),
    positive_rating: z.boolean().nullable().optional().openapi({ description: "Single form" }),
  })
  .strict()
  .openapi("RateLogs");

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

export const CommentBody = z
  .object({
    comment: z.string().min(1).max(10_000),
    name: z.string().max(320).optional().openapi({ description: "Default: the key's name" }),
    email: z.string().max(320).optional().openapi({ description: "Default: the key's email" }),
  })
  .strict()
  .openapi("Comment");

export const LogWithCommentsSchema = z
  .object({
    prompt: z.string(),
    completion: z.string(),
    id: z.string(),
    date: z.string(),
    positive_rating: z.boolean().nullable(),
    variant_id: z.string(),
    comments: z.array(z.object({ name: z.string(), email: z.string(), comment: z.string() })),
  })
  .openapi("LogWithComments");
