import { describe, expect, it } from "vitest";
import { completionEvent, completionEvents, sseFrames } from "../src/pages/endpoints/sse-reader.ts";

/** A body that delivers `pieces` as separate reads, the way a network hands bytes over. */
function body(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const next = pieces.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe("SSE frames", () => {
  it("splits frames across arbitrary byte boundaries, any line end", async () => {
    const frames = await collect(
      sseFrames(
        body(["data: one\n", "\ndata: t", "wo\r", "\n\r\n: comment\n\ndata: a\ndata: b\r\r"]),
      ),
    );
    expect(frames).toEqual([
      { event: "message", data: "one" },
      { event: "message", data: "two" },
      { event: "message", data: "a\nb" },
    ]);
  });

  it("keeps a multi-byte character split between reads", async () => {
    const bytes = new TextEncoder().encode("data: café ☕\n\n");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 10));
        controller.enqueue(bytes.slice(10));
        controller.close();
      },
    });
    expect(await collect(sseFrames(stream))).toEqual([{ event: "message", data: "café ☕" }]);
  });

  it("drops a last frame cut before its blank line", async () => {
    expect(await collect(sseFrames(body(["data: whole\n\ndata: cut"])))).toEqual([
      { event: "message", data: "whole" },
    ]);
  });
});

describe("completion events", () => {
  it("reads a text completion stream: tokens, the last chunk, [DONE], the search results", async () => {
    const results = [{ embedding: "Tides.", data: {}, confidence: 0.9, query: "t", metadata: {} }];
    const frames = [
      { choices: [{ text: "Tides ", index: 0, finish_reason: null, usage_id: "log_1" }] },
      { choices: [{ text: "rise.", index: 0, finish_reason: null, usage_id: "log_1" }] },
      {
        choices: [{ text: "", index: 0, finish_reason: "stop", usage_id: "log_1" }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        search_results: results,
      },
    ].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
    frames.push("data: [DONE]\n\n");
    frames.push(
      `data: ${JSON.stringify({ choices: [], search_results: results, usage_id: "log_1" })}\n\n`,
    );
    const events = await collect(completionEvents(body(frames)));
    expect(events).toEqual([
      { type: "token", text: "Tides ", usageId: "log_1" },
      { type: "token", text: "rise.", usageId: "log_1" },
      {
        type: "finish",
        finishReason: "stop",
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        searchResults: results,
        usageId: "log_1",
        promptCost: undefined,
        completionCost: undefined,
      },
      { type: "done" },
      { type: "search-results", searchResults: results, usageId: "log_1" },
    ]);
  });

  it("reads chat deltas, and the error envelope that ends a failing stream", () => {
    expect(
      completionEvent(
        JSON.stringify({ choices: [{ delta: { role: "assistant", content: "Hi" }, index: 0 }] }),
      ),
    ).toEqual([{ type: "token", text: "Hi", usageId: undefined }]);
    expect(
      completionEvent(
        JSON.stringify({
          error: { code: "upstream_error", message: "model failed", request_id: "r" },
        }),
      ),
    ).toEqual([
      {
        type: "error",
        error: { code: "upstream_error", message: "model failed", request_id: "r" },
      },
    ]);
    expect(completionEvent("{not json")[0]).toMatchObject({ type: "error" });
  });
});
