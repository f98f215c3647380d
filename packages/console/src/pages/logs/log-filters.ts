/**
 * The log review's filters, kept in the page's URL so a filtered view can be reloaded, shared
 * and opened in a new tab, and turned into E7's query parameters (issue 16, item 7:
 * `rating`, `has_comments`, `since`, `until`, `user`, `status`). The console's URL uses the
 * API's own names, so one vocabulary serves both.
 *
 * Reading a URL is lenient (a hand-edited or stale value is dropped, never an error page);
 * the API stays the judge of what it accepts and its 400 is shown beside the filters.
 */

export const RATINGS = ["positive", "negative", "unrated"] as const;
export type RatingFilter = (typeof RATINGS)[number];

export interface LogFilters {
  rating?: RatingFilter;
  hasComments?: boolean;
  /** ISO 8601 instant, inclusive */
  since?: string;
  /** ISO 8601 instant */
  until?: string;
  /** the `user` the completion was requested for */
  user?: string;
  /** HTTP status of the completion (200, 499, 502, …) */
  status?: number;
}

/** E7's default and the console's page size: 50 logs are one screen of review. */
export const LOG_PAGE_SIZE = 50;

export interface LogQuery {
  filters: LogFilters;
  /** 1-based, as E7 counts pages */
  page: number;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function isInstant(value: string): boolean {
  return ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value));
}

/** The filters and page a console URL's query string describes; bad values are dropped. */
export function readLogQuery(params: URLSearchParams): LogQuery {
  const filters: LogFilters = {};
  const rating = params.get("rating");
  if (rating && (RATINGS as readonly string[]).includes(rating)) {
    filters.rating = rating as RatingFilter;
  }
  const hasComments = params.get("has_comments");
  if (hasComments === "true" || hasComments === "false") {
    filters.hasComments = hasComments === "true";
  }
  const since = params.get("since");
  if (since && isInstant(since)) filters.since = since;
  const until = params.get("until");
  if (until && isInstant(until)) filters.until = until;
  const user = params.get("user")?.trim();
  if (user) filters.user = user;
  const status = params.get("status");
  if (status && /^[1-5]\d\d$/.test(status)) filters.status = Number(status);
  const page = Number(params.get("page"));
  return { filters, page: Number.isInteger(page) && page >= 1 ? page : 1 };
}

/** The filters as query parameters, in a fixed order, without the ones not set. */
export function filterParams(filters: LogFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.rating) params.set("rating", filters.rating);
  if (filters.hasComments !== undefined) params.set("has_comments", String(filters.hasComments));
  if (filters.since) params.set("since", filters.since);
  if (filters.until) params.set("until", filters.until);
  if (filters.user) params.set("user", filters.user);
  if (filters.status !== undefined) params.set("status", String(filters.status));
  return params;
}

/** The console URL's query string for a view (page 1 is left out). */
export function writeLogQuery({ filters, page }: LogQuery): URLSearchParams {
  const params = filterParams(filters);
  if (page > 1) params.set("page", String(page));
  return params;
}

/** The filters as E7 and the export route name and type them (issue 16, item 7). */
export interface ApiLogFilters {
  rating?: RatingFilter;
  has_comments?: boolean;
  since?: string;
  until?: string;
  user?: string;
  status?: number;
}

export function apiLogFilters(filters: LogFilters): ApiLogFilters {
  const api: ApiLogFilters = {};
  if (filters.rating) api.rating = filters.rating;
  if (filters.hasComments !== undefined) api.has_comments = filters.hasComments;
  if (filters.since) api.since = filters.since;
  if (filters.until) api.until = filters.until;
  if (filters.user) api.user = filters.user;
  if (filters.status !== undefined) api.status = filters.status;
  return api;
}

/** E7's query for one page of the filtered logs. */
export function listLogsQuery(
  { filters, page }: LogQuery,
  pageSize = LOG_PAGE_SIZE,
): ApiLogFilters & { page: number; page_size: number } {
  return { ...apiLogFilters(filters), page, page_size: pageSize };
}

/** The export route's query: the same filters, and the file format. */
export function exportLogsQuery(
  filters: LogFilters,
  format: "jsonl" | "csv",
): ApiLogFilters & { format: "jsonl" | "csv" } {
  return { ...apiLogFilters(filters), format };
}

export function hasAnyFilter(filters: LogFilters): boolean {
  return filterParams(filters).size > 0;
}

/**
 * A date input's day (`YYYY-MM-DD`, the reviewer's local calendar) as the instant the range
 * starts (`since`: midnight) or ends (`until`: the last millisecond of that day), so a range
 * of one day holds that whole day.
 */
export function dayToInstant(day: string, edge: "since" | "until"): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date =
    edge === "since" ? new Date(y, m - 1, d, 0, 0, 0, 0) : new Date(y, m - 1, d, 23, 59, 59, 999);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The local calendar day of an instant, for a date input's value ("" when unset). */
export function instantToDay(instant: string | undefined): string {
  if (!instant) return "";
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * Whether a log on screen still belongs to the filtered list after the reviewer rated or
 * commented it. E7 pages by position, so when logs leave the list (rated under "Not rated"),
 * the next page would start past logs never shown: the review reloads the same page instead.
 */
export function stillMatches(
  log: { rating: boolean | null; commentCount: number | null },
  filters: LogFilters,
): boolean {
  const rating = log.rating === null ? "unrated" : log.rating ? "positive" : "negative";
  if (filters.rating && filters.rating !== rating) return false;
  if (filters.hasComments !== undefined && log.commentCount !== null) {
    if (filters.hasComments !== log.commentCount > 0) return false;
  }
  return true;
}
