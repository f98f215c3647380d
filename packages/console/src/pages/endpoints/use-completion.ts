import { useCallback, useRef, useState } from "react";
import { api, authorizationFor, ok } from "../../api/client.ts";
import { ApiError, apiErrorOf } from "../../api/errors.ts";
import {
  type CompletionSearchResult,
  completionEvents,
  type ErrorEnvelope,
  type Usage,
} from "./sse-reader.ts";

/**
 * Runs E4 from the playground. Streaming reads the SSE body with `fetch` (EventSource cannot
 * POST or send the key) and appends each token as it arrives; the JSON form waits for the
 * whole reply, which also carries the costs.
 */
export interface CompletionRequest {
  values: Record<string, string>;
  /** appended to the endpoint's template (a user turn on chat endpoints) */
  input: string;
  user: string;
  stream: boolean;
}

export interface CompletionState {
  status: "idle" | "running" | "done" | "failed" | "stopped";
  text: string;
  /** tokens received so far (stream events with text) */
  tokens: number;
  usageId?: string;
  finishReason?: string;
  usage?: Usage;
  searchResults?: CompletionSearchResult[];
  promptCost?: number;
  completionCost?: number;
  /** milliseconds to the first token, and to the end */
  firstTokenMs?: number;
  totalMs?: number;
  error?: unknown;
}

const IDLE: CompletionState = { status: "idle", text: "", tokens: 0 };

function requestBody(endpointType: "chat" | "completion", request: CompletionRequest) {
  const input = request.input.trim();
  return {
    values: request.values,
    // E4 takes the caller's own text (prompt or messages) even when it is empty.
    ...(endpointType === "chat"
      ? { messages: input === "" ? [] : [{ role: "user" as const, content: input }] }
      : { prompt: input === "" ? [] : [input] }),
    ...(request.user.trim() ? { user: request.user.trim() } : {}),
  };
}

export function useCompletion(endpointId: string, endpointType: "chat" | "completion") {
  const [state, setState] = useState<CompletionState>(IDLE);
  const abort = useRef<AbortController | null>(null);

  const stop = useCallback(() => abort.current?.abort(), []);

  const run = useCallback(
    async (request: CompletionRequest) => {
      abort.current?.abort();
      const controller = new AbortController();
      abort.current = controller;
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      setState({ ...IDLE, status: "running" });
      const body = requestBody(endpointType, request);
      try {
        if (!request.stream) {
          const reply = await ok(
            api.POST("/api/endpoints/{id}/completions", {
              params: { path: { id: endpointId } },
              body,
              signal: controller.signal,
            }),
          );
          // The 200 is JSON or an event stream in the schema; without `stream` it is JSON.
          if (typeof reply === "string") throw new Error("The API answered a stream, not JSON.");
          const choice = reply.choices[0];
          setState({
            status: "done",
            text: choice?.text ?? "",
            tokens: reply.usage.completion_tokens,
            usageId: choice?.usage_id,
            finishReason: choice?.finish_reason,
            usage: reply.usage,
            searchResults: reply.search_results,
            promptCost: reply.prompt_cost,
            completionCost: reply.completion_cost,
            totalMs: elapsed(),
          });
          return;
        }
        const url = `/api/endpoints/${encodeURIComponent(endpointId)}/completions`;
        const headers = new Headers({ "Content-Type": "application/json" });
        const authorization = authorizationFor(url);
        if (authorization) headers.set("Authorization", authorization);
        const response = await fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({ ...body, stream: true }),
          signal: controller.signal,
        });
        if (!response.ok || !response.body) {
          const envelope = await response.json().catch(() => null);
          throw apiErrorOf(response.status, envelope, response.headers.get("x-request-id"));
        }
        let failed: ErrorEnvelope | undefined;
        for await (const event of completionEvents(response.body)) {
          if (event.type === "token") {
            setState((s) => ({
              ...s,
              text: s.text + event.text,
              tokens: s.tokens + 1,
              usageId: s.usageId ?? event.usageId,
              firstTokenMs: s.firstTokenMs ?? elapsed(),
            }));
          } else if (event.type === "finish") {
            setState((s) => ({
              ...s,
              finishReason: event.finishReason,
              usage: event.usage,
              usageId: s.usageId ?? event.usageId,
              searchResults: event.searchResults ?? s.searchResults,
              promptCost: event.promptCost,
              completionCost: event.completionCost,
            }));
          } else if (event.type === "search-results") {
            setState((s) => ({ ...s, searchResults: event.searchResults }));
          } else if (event.type === "error") {
            failed = event.error;
          }
        }
        if (failed) {
          throw new ApiError(502, failed.code, failed.message, failed.request_id ?? null);
        }
        setState((s) => ({ ...s, status: "done", totalMs: elapsed() }));
      } catch (error) {
        if (controller.signal.aborted) {
          setState((s) => ({ ...s, status: "stopped", totalMs: elapsed() }));
        } else {
          setState((s) => ({ ...s, status: "failed", error, totalMs: elapsed() }));
        }
      }
    },
    [endpointId, endpointType],
  );

  return { state, run, stop };
}
