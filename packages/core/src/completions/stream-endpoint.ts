import { type CompletionPart, streamCompletion } from "@quarry/providers";
import type { ProjectContext } from "../shared/context.ts";
import type { CompletionInput } from "./completion-input.ts";
import { LOG_STATUS } from "./completion-log.ts";
import { ChunkWriter, DONE } from "./completion-reply.ts";
import { type CompletionOptions, CompletionRun } from "./completion-run.ts";

export interface CompletionStream {
  /**
   * The `data` of each server-sent event, in order: OpenAI chunks as the model produces them,
   * the last one with the finish reason, usage and (when the endpoint searches)
   * `search_results`, `[DONE]`, then (when it searches) the search results once more. A
   * provider failure mid-way errors the stream with an `upstream_error` once it is logged;
   * cancelling the stream (the client went away) stops the model and logs what it had
   * produced with status 499.
   */
  events: ReadableStream<string>;
  /** settles once the log row is written, however the stream ended; never rejects */
  logged: Promise<void>;
  /** the log id (`usage_id`) */
  logId: string;
}

/**
 * E4 with `stream: true`. Resolves once the model has started answering; everything before
 * that (validation, search, a provider failing at once) throws as for a JSON reply, so the
 * caller still gets an error status rather than a 200 stream that fails. The log row is
 * written when the model finishes, before `[DONE]`, so a client that saw `[DONE]` can rate
 * the completion at once.
 */
export async function streamEndpoint(
  ctx: ProjectContext,
  endpointId: string,
  input: CompletionInput,
  options: CompletionOptions,
): Promise<CompletionStream> {
  const run = await CompletionRun.start(ctx, endpointId, input, options);
  await run.retrieve();
  const { model, call } = await run.model();
  const abort = new AbortController();
  let parts: ReadableStream<CompletionPart>;
  try {
    parts = await streamCompletion(model, { ...call, signal: abort.signal });
  } catch (error) {
    throw await run.fail(error);
  }

  const reader = parts.getReader();
  const writer = new ChunkWriter(run);
  let text = "";
  /** what follows the model's last chunk */
  const tail: string[] = [];

  const events = new ReadableStream<string>(
    {
      async pull(controller) {
        const next = tail.shift();
        if (next !== undefined) {
          controller.enqueue(next);
          if (tail.length === 0) controller.close();
          return;
        }
        let part: CompletionPart;
        try {
          const read = await reader.read();
          if (read.done) throw new Error("the model stream ended without finishing");
          part = read.value;
        } catch (error) {
          controller.error(await run.fail(error, text));
          return;
        }
        if (part.type === "text") {
          text += part.text;
          controller.enqueue(writer.text(part.text));
          return;
        }
        const costs = await run.finish({
          status: LOG_STATUS.ok,
          error: null,
          text,
          usage: part.usage,
          modelId: part.modelId,
        });
        const results = run.usesSearch ? await run.results() : undefined;
        controller.enqueue(writer.finish(part.finishReason, costs, results));
        tail.push(DONE);
        if (results) tail.push(writer.searchResults(results));
      },
      async cancel(reason) {
        abort.abort(reason);
        reader.cancel(reason).catch(() => {});
        await run
          .finish({
            status: LOG_STATUS.abandoned,
            error: "the client closed the stream before the end",
            text,
            usage: undefined,
            modelId: undefined,
          })
          .catch(() => {});
      },
    },
    // One event per pull: nothing is read from the model before the client can take it.
    { highWaterMark: 0 },
  );
  return { events, logged: run.whenLogged, logId: run.logId };
}
