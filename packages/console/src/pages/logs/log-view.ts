import type { components } from "../../api/schema";

/**
 * E7's listing form keeps the original service's shape: `prompt`, `search_results` and
 * `status` are JSON text (docs/api.md#logs). The review page reads them once, here, into what
 * it shows; a field that does not parse is shown as the text it is, never a crash.
 */
export type LogListing = components["schemas"]["Log"];

export interface ChatMessage {
  role: string;
  content: string;
}

/** E10's comment, as E7 lists it beside its log. */
export type LogComment = components["schemas"]["LogComment"];

export interface LogSearchResult {
  embedding: string;
  confidence?: number;
  variable?: string;
  query?: string;
  metadata?: Record<string, unknown>;
}

export interface LogView {
  id: string;
  userId: string;
  at: string;
  model: string;
  deploymentId: number;
  prompt: { kind: "text"; text: string } | { kind: "messages"; messages: ChatMessage[] };
  completion: string;
  rating: boolean | null;
  values: Record<string, unknown>;
  searchResults: LogSearchResult[];
  status: number | null;
  error: string | null;
  latencyMs: number | null;
  promptTokens: number;
  completionTokens: number;
  /** dollars: prompt_cost + completion_cost */
  cost: number;
  /** oldest first */
  comments: LogComment[];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isMessage(value: unknown): value is ChatMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ChatMessage).role === "string" &&
    typeof (value as ChatMessage).content === "string"
  );
}

export function viewOfLog(log: LogListing): LogView {
  const prompt = parseJson(log.prompt);
  const status = parseJson(log.status) as { status?: unknown; error?: unknown } | undefined;
  const results = parseJson(log.search_results);
  return {
    id: log.id,
    userId: log.user_id,
    at: log.timestamp.value,
    model: log.model,
    deploymentId: log.deployment_id,
    prompt:
      Array.isArray(prompt) && prompt.every(isMessage)
        ? { kind: "messages", messages: prompt }
        : { kind: "text", text: typeof prompt === "string" ? prompt : log.prompt },
    completion: log.completion,
    rating: log.positive_rating,
    values: log.values ?? {},
    searchResults: Array.isArray(results)
      ? results.filter(
          (r): r is LogSearchResult =>
            typeof r === "object" && r !== null && typeof r.embedding === "string",
        )
      : [],
    status: typeof status?.status === "number" ? status.status : null,
    error: typeof status?.error === "string" ? status.error : null,
    latencyMs: log.latency,
    promptTokens: log.prompt_tokens,
    completionTokens: log.completion_tokens,
    cost: log.cost,
    comments: log.comments,
  };
}

/** One line of a log for the list: the start of its completion, or of its error. */
export function logSummary(view: LogView, length = 120): string {
  const text = (view.completion || view.error || "(empty completion)").replace(/\s+/g, " ").trim();
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

export function formatCost(dollars: number | null): string {
  if (dollars === null) return "—";
  if (dollars === 0) return "$0";
  return dollars < 0.01 ? `$${dollars.toPrecision(2)}` : `$${dollars.toFixed(4)}`;
}

export function formatLatency(ms: number | null): string {
  if (ms === null) return "—";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
