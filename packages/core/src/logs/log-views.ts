import type { logComments, logs } from "@quarry/db";

export type LogRecord = typeof logs.$inferSelect;
export type LogCommentRecord = typeof logComments.$inferSelect;

/** A log in listing form, as E7 shows it (docs/api.md#logs). */
export interface LogListing {
  id: string;
  user_id: string;
  endpoint_id: string;
  timestamp: { value: string };
  /** the model as the provider named it */
  model: string;
  /** JSON text of the rendered prompt (completion endpoints) or messages (chat endpoints) */
  prompt: string;
  completion: string;
  positive_rating: boolean | null;
  values: Record<string, unknown> | null;
  /** JSON text of the completion's search results */
  search_results: string;
  /** JSON text of `{status}` (the HTTP status of the completion), with `error` when it failed */
  status: string;
  deployment_id: number;
  /** milliseconds from the request to the completion's end */
  latency: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  /** prompt_cost + completion_cost, in dollars */
  cost: number;
  /** E10's comments on the log, oldest first */
  comments: LogComment[];
}

/** A comment as the listing and the export show it. */
export interface LogComment {
  name: string;
  email: string;
  comment: string;
  created_at: string;
}

/** A log in rating form, as E15 answers (docs/api.md#logs). */
export interface LogRating {
  user_id: string;
  project_id: string;
  timestamp: string;
  provider_name: string;
  /** prompt_cost + completion_cost, in dollars */
  cost: number;
  prompt: string;
  completion: string;
  id: string;
  date: string;
  /** 1 positive, -1 negative, 0 not rated */
  rating: number;
  /** the endpoint's temperature; 1 (the providers' default) when it sets none */
  temp: number;
  completions: null;
  /** the service called the model (always, here) */
  managed: boolean;
  positive_rating: boolean | null;
  /** the endpoint whose template produced the prompt */
  template_id: string | null;
  values: Record<string, unknown>;
}

/** A log with its comments, as E10 answers (docs/api.md#logs). */
export interface LogWithComments {
  prompt: string;
  completion: string;
  id: string;
  date: string;
  positive_rating: boolean | null;
  /** the endpoint deployment that served the completion */
  variant_id: string;
  comments: LogComment[];
}

export function toLogListing(log: LogRecord, comments: LogCommentRecord[]): LogListing {
  return {
    id: log.id,
    user_id: log.userId,
    endpoint_id: log.endpointId,
    timestamp: { value: log.createdAt.toISOString() },
    model: log.model,
    prompt: JSON.stringify(log.prompt),
    completion: log.completion,
    positive_rating: log.positiveRating,
    values: log.values ?? null,
    search_results: JSON.stringify(log.searchResults),
    status: JSON.stringify(
      log.error ? { status: log.status, error: log.error } : { status: log.status },
    ),
    deployment_id: log.deploymentId,
    latency: log.latencyMs,
    prompt_tokens: log.promptTokens,
    completion_tokens: log.completionTokens,
    cost: log.promptCost + log.completionCost,
    comments: comments.map(toLogComment),
  };
}

export function toLogComment(comment: LogCommentRecord): LogComment {
  return {
    name: comment.name,
    email: comment.email,
    comment: comment.comment,
    created_at: comment.createdAt.toISOString(),
  };
}

export function toLogRating(log: LogRecord): LogRating {
  return {
    user_id: log.userId,
    project_id: log.projectId,
    timestamp: log.createdAt.toISOString(),
    provider_name: log.model,
    cost: log.promptCost + log.completionCost,
    prompt: promptText(log.prompt),
    completion: log.completion,
    id: log.id,
    date: dateOf(log.createdAt),
    rating: log.positiveRating === null ? 0 : log.positiveRating ? 1 : -1,
    temp: log.temperature ?? 1,
    completions: null,
    managed: true,
    positive_rating: log.positiveRating,
    template_id: log.endpointId,
    values: log.values ?? {},
  };
}

export function toLogWithComments(log: LogRecord, comments: LogCommentRecord[]): LogWithComments {
  return {
    prompt: promptText(log.prompt),
    completion: log.completion,
    id: log.id,
    date: dateOf(log.createdAt),
    positive_rating: log.positiveRating,
    variant_id: String(log.deploymentId),
    comments: comments.map(toLogComment),
  };
}

/** A completion endpoint's prompt is text already; a chat's messages become JSON text. */
function promptText(prompt: unknown): string {
  return typeof prompt === "string" ? prompt : JSON.stringify(prompt);
}

function dateOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}
