import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { BadRequestError } from "../shared/errors.ts";

/** Default and maximum of `top_k`, `top_k_documents` and `top_k_rows` (docs/api.md#limits). */
export const DEFAULT_TOP_K = 3;
export const MAX_TOP_K = 100;
/**
 * A query is embedded and analysed whole; this bounds the work one request can ask for
 * (10,000 characters is several pages of text, far beyond any search box).
 */
export const MAX_QUERY_CHARS = 10_000;

/** E2's body, validated. `filter` is compiled (and its grammar checked) with the query. */
export interface RowSearchParams {
  query: string;
  topK: number;
  alpha: number;
  filter: unknown;
}

export interface DocumentSearchParams {
  query: string;
  topK: number;
}

export interface DocumentFilteredSearchParams {
  query: string;
  topKDocuments: number;
  topKRows: number;
}

/**
 * docs/api.md#alpha: alpha is in [0, 1], 1 pure semantic and 0 pure keyword; it defaults to 0.5 on
 * hybrid datasets and 1 on standard ones.
 */
export function defaultAlpha(dataset: Pick<DatasetRecord, "kind">): number {
  return dataset.kind === "hybrid" ? 0.5 : 1;
}

export function parseRowSearch(
  dataset: Pick<DatasetRecord, "kind">,
  body: Record<string, unknown>,
): RowSearchParams {
  rejectUnknown(body, ["query", "top_k", "filter", "alpha"]);
  const alpha = body.alpha ?? defaultAlpha(dataset);
  if (typeof alpha !== "number" || !Number.isFinite(alpha) || alpha < 0 || alpha > 1) {
    throw new BadRequestError("must be a number from 0 (keyword) to 1 (semantic)", "alpha");
  }
  if (body.filter !== undefined && body.filter !== null && !isPlainObject(body.filter)) {
    throw new BadRequestError("must be an object", "filter");
  }
  return {
    query: parseQuery(body.query),
    topK: parseTopK(body.top_k, "top_k"),
    alpha,
    filter: body.filter ?? undefined,
  };
}

export function parseDocumentSearch(body: Record<string, unknown>): DocumentSearchParams {
  rejectUnknown(body, ["query", "top_k"]);
  return { query: parseQuery(body.query), topK: parseTopK(body.top_k, "top_k") };
}

export function parseDocumentFilteredSearch(
  body: Record<string, unknown>,
): DocumentFilteredSearchParams {
  rejectUnknown(body, ["query", "top_k_documents", "top_k_rows"]);
  return {
    query: parseQuery(body.query),
    topKDocuments: parseTopK(body.top_k_documents, "top_k_documents"),
    topKRows: parseTopK(body.top_k_rows, "top_k_rows"),
  };
}

function parseQuery(value: unknown): string {
  if (typeof value !== "string") throw new BadRequestError("is required: a string", "query");
  if (value.trim() === "") throw new BadRequestError("must not be empty", "query");
  if (value.length > MAX_QUERY_CHARS) {
    throw new BadRequestError(`is longer than ${MAX_QUERY_CHARS} characters`, "query");
  }
  return value;
}

function parseTopK(value: unknown, path: string): number {
  if (value === undefined || value === null) return DEFAULT_TOP_K;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TOP_K) {
    throw new BadRequestError(`must be an integer from 1 to ${MAX_TOP_K}`, path);
  }
  return value;
}

function rejectUnknown(body: Record<string, unknown>, known: string[]): void {
  const unknown = Object.keys(body).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new BadRequestError(`unknown field; this search takes ${known.join(", ")}`, unknown);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
