import type { components } from "../../api/schema";

/**
 * Reads E4's completion stream (docs/api.md#completion-streams) from a `fetch` body as bytes
 * arrive: `EventSource` cannot POST or send the key, so the console parses the frames itself.
 *
 * Two layers: `sseFrames` splits bytes into Server-Sent Events (the WHATWG rules: `\n`, `\r\n`
 * or `\r` line ends, `data:` lines joined, comments ignored), and `completionEvents` gives each
 * frame its meaning in Quarry's stream: a token, the last chunk (finish reason, usage, search
 * results), `[DONE]`, the search results once more, or the error envelope that ends a stream
 * failing after its 200.
 */

export interface SseFrame {
  event: string;
  data: string;
}

/** Splits a byte stream into SSE frames, yielding each as soon as its blank line arrives. */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  const takeLines = function* (final: boolean): Generator<SseFrame> {
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A lone "\r" at the end may be the first half of "\r\n": wait for the next bytes.
      if (end === -1 || (!final && end === buffer.length - 1 && buffer[end] === "\r")) return;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line === "") {
        if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") event = value;
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      yield* takeLines(false);
    }
    buffer += decoder.decode();
    yield* takeLines(true);
    // A stream cut without the final blank line: its last frame is incomplete, dropped (as
    // EventSource does).
  } finally {
    reader.releaseLock();
  }
}

/** The API's own types (schema.d.ts, generated from the OpenAPI document). */
export type Usage = components["schemas"]["Completion"]["usage"];
/** A search result as a completion carries it (docs/api.md#search-result). */
export type CompletionSearchResult = components["schemas"]["CompletionSearchResult"];

export interface ErrorEnvelope {
  code: string;
  message: string;
  request_id?: string;
}

export type CompletionEvent =
  | { type: "token"; text: string; usageId?: string }
  | {
      type: "finish";
      finishReason: string;
      usage?: Usage;
      searchResults?: CompletionSearchResult[];
      usageId?: string;
      /** dollars, when the stream carries them (the JSON reply always does) */
      promptCost?: number;
      completionCost?: number;
    }
  | { type: "done" }
  | { type: "search-results"; searchResults: CompletionSearchResult[]; usageId?: string }
  | { type: "error"; error: ErrorEnvelope };

interface Chunk {
  choices?: {
    text?: string;
    delta?: { content?: string | null };
    finish_reason?: string | null;
    usage_id?: string;
  }[];
  usage?: Usage;
  search_results?: CompletionSearchResult[];
  usage_id?: string;
  prompt_cost?: number;
  completion_cost?: number;
  error?: ErrorEnvelope;
}

/** The meaning of one frame's `data` in Quarry's completion stream. */
export function completionEvent(data: string): CompletionEvent[] {
  if (data === "[DONE]") return [{ type: "done" }];
  let chunk: Chunk;
  try {
    chunk = JSON.parse(data) as Chunk;
  } catch {
    return [{ type: "error", error: { code: "bad_stream", message: `unreadable event: ${data}` } }];
  }
  if (chunk.error) return [{ type: "error", error: chunk.error }];
  const choices = chunk.choices ?? [];
  if (choices.length === 0) {
    return chunk.search_results
      ? [{ type: "search-results", searchResults: chunk.search_results, usageId: chunk.usage_id }]
      : [];
  }
  const events: CompletionEvent[] = [];
  for (const choice of choices) {
    const text = choice.text ?? choice.delta?.content ?? "";
    if (text !== "") events.push({ type: "token", text, usageId: choice.usage_id });
    if (choice.finish_reason) {
      events.push({
        type: "finish",
        finishReason: choice.finish_reason,
        usage: chunk.usage,
        searchResults: chunk.search_results,
        usageId: choice.usage_id,
        promptCost: chunk.prompt_cost,
        completionCost: chunk.completion_cost,
      });
    }
  }
  return events;
}

/** Every completion event of a stream, in order. */
export async function* completionEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<CompletionEvent> {
  for await (const frame of sseFrames(body)) {
    if (frame.event !== "message") continue;
    yield* completionEvent(frame.data);
  }
}
