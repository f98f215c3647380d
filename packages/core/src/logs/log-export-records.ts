import Papa from "papaparse";
import type { LogExportFormat } from "./export-logs-input.ts";
import {
  type LogComment,
  type LogCommentRecord,
  type LogRecord,
  toLogComment,
} from "./log-views.ts";

/**
 * One exported log with its rating and comments (docs/api.md#log-export): the shape of a
 * JSON Lines record, and of a CSV row where every value that is not text becomes JSON text.
 */
export interface LogExportRecord {
  id: string;
  timestamp: string;
  endpoint_id: string;
  deployment_id: number;
  user_id: string;
  model: string;
  /** the HTTP status of the completion */
  status: number;
  error: string | null;
  rating: "positive" | "negative" | "unrated";
  positive_rating: boolean | null;
  latency_ms: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  /** prompt_cost + completion_cost, in dollars */
  cost: number;
  /** the rendered prompt (completion endpoints, text) or messages (chat endpoints, a list) */
  prompt: unknown;
  completion: string;
  values: Record<string, unknown> | null;
  search_results: unknown[];
  /** oldest first */
  comments: LogComment[];
}

export const LOG_EXPORT_COLUMNS = [
  "id",
  "timestamp",
  "endpoint_id",
  "deployment_id",
  "user_id",
  "model",
  "status",
  "error",
  "rating",
  "positive_rating",
  "latency_ms",
  "prompt_tokens",
  "completion_tokens",
  "cost",
  "prompt",
  "completion",
  "values",
  "search_results",
  "comments",
] as const satisfies readonly (keyof LogExportRecord)[];

export function toLogExportRecord(log: LogRecord, comments: LogCommentRecord[]): LogExportRecord {
  return {
    id: log.id,
    timestamp: log.createdAt.toISOString(),
    endpoint_id: log.endpointId,
    deployment_id: log.deploymentId,
    user_id: log.userId,
    model: log.model,
    status: log.status,
    error: log.error,
    rating: log.positiveRating === null ? "unrated" : log.positiveRating ? "positive" : "negative",
    positive_rating: log.positiveRating,
    latency_ms: log.latencyMs,
    prompt_tokens: log.promptTokens,
    completion_tokens: log.completionTokens,
    cost: log.promptCost + log.completionCost,
    prompt: log.prompt,
    completion: log.completion,
    values: log.values ?? null,
    search_results: log.searchResults,
    comments: comments.map(toLogComment),
  };
}

/** The text before the first record: CSV's header row; nothing for JSON Lines. */
export function exportPreamble(format: LogExportFormat): string {
  return format === "csv" ? csvLine(LOG_EXPORT_COLUMNS) : "";
}

/** Records as lines of the format, each ending in its newline (CRLF for CSV, RFC 4180). */
export function exportLines(format: LogExportFormat, records: LogExportRecord[]): string {
  if (format === "jsonl") return records.map((r) => `${JSON.stringify(r)}\n`).join("");
  return records
    .map((r) => csvLine(LOG_EXPORT_COLUMNS.map((column) => csvCell(r[column]))))
    .join("");
}

/** Text as it is; null as an empty cell; numbers and booleans as written; the rest as JSON. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * One CSV row, quoted by papaparse where RFC 4180 requires it (a comma, a quote — doubled —
 * or a line break in the cell). Cells are the data exactly: no formula escaping, which would
 * change text that starts with `-` or `=`.
 */
function csvLine(cells: readonly string[]): string {
  return `${Papa.unparse([cells as string[]], { newline: "\r\n" })}\r\n`;
}
