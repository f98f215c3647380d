import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { ProviderError, toProviderError } from "../errors.ts";
import { withRetry } from "../retry.ts";
import {
  type CompletionCall,
  type CompletionTimeouts,
  type CompletionUsage,
  openAIFinishReason,
  sdkArguments,
  timeoutsOf,
} from "./completion-call.ts";
import type { LanguageModel } from "./create-language-model.ts";

/** What a completion stream carries: text as the model produces it, then one `finish`. */
export type CompletionPart =
  | { type: "text"; text: string }
  | {
      type: "finish";
      finishReason: string;
      usage: CompletionUsage;
      modelId: string | undefined;
    };

/**
 * Starts a streamed completion through the AI SDK's model interface (`doStream` of the
 * provider's LanguageModelV3, the layer `streamText` itself calls) and resolves once the model
 * has produced its first part, so a provider that fails at once (a 5xx, a 429, a refused
 * connection) is still a `ProviderError` the caller can answer with an error status;
 * retryable failures are retried before that point, never after (text already forwarded
 * cannot be taken back).
 *
 * The stream then yields every part as it arrives (nothing is buffered) and errors with a
 * `ProviderError` when the provider fails or stalls mid-way (`idleMs`, `totalMs`).
 * Cancelling it aborts the upstream request.
 *
 * Not `streamText`: its per-stream machinery (stitched and teed streams, step bookkeeping)
 * cost 2–3 ms before the first token in our measurements, which is most of the time to
 * first byte a proxy may add; we need none of its tool or multi-step features.
 */
export async function streamCompletion(
  model: LanguageModel,
  call: CompletionCall,
): Promise<ReadableStream<CompletionPart>> {
  const timeouts = timeoutsOf(call);
  const started = Date.now();
  const upstream = await withRetry(
    async () => {
      const attempt = new UpstreamStream(model, call, timeouts, started);
      try {
        const first = await attempt.next();
        return { attempt, first };
      } catch (error) {
        attempt.cancel(error);
        throw error;
      }
    },
    { retries: call.retries ?? 2, ...(call.signal ? { signal: call.signal } : {}) },
  );

  let pending: CompletionPart | undefined = upstream.first;
  return new ReadableStream<CompletionPart>(
    {
      async pull(controller) {
        try {
          const part = pending ?? (await upstream.attempt.next());
          pending = undefined;
          if (part === undefined) controller.close();
          else controller.enqueue(part);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel(reason) {
        upstream.attempt.cancel(reason);
      },
    },
    // Pull only when the consumer asks: a slow reader slows the upstream read, not our memory.
    { highWaterMark: 0 },
  );
}

/** One attempt: the SDK's part stream read one meaningful part at a time, under deadlines. */
class UpstreamStream {
  private readonly abort = new AbortController();
  private readonly reader: Promise<ReadableStreamDefaultReader<LanguageModelV3StreamPart>>;
  private timedOut: string | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  private modelId: string | undefined;
  private finished = false;

  constructor(
    model: LanguageModel,
    private readonly call: CompletionCall,
    private readonly timeouts: CompletionTimeouts,
    started: number,
  ) {
    const signal = call.signal
      ? AbortSignal.any([call.signal, this.abort.signal])
      : this.abort.signal;
    const { temperature, maxOutputTokens, providerOptions } = sdkArguments(call);
    this.reader = Promise.resolve(
      model.doStream({
        prompt: toPrompt(call),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
        ...(providerOptions ? { providerOptions } : {}),
        abortSignal: signal,
      }),
    ).then((result) => result.stream.getReader());
    // A failure here is read (and explained) by `next`; it must not count as unhandled.
    this.reader.catch(() => {});
    const left = Math.max(1, timeouts.totalMs - (Date.now() - started));
    this.totalTimer = setTimeout(() => this.timeOut(`no end within ${timeouts.totalMs} ms`), left);
    this.arm(timeouts.firstTokenMs, "no first token");
  }

  /** The next text or finish part; undefined once the stream has ended. */
  async next(): Promise<CompletionPart | undefined> {
    if (this.finished) return undefined;
    try {
      const reader = await this.reader;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) throw new ProviderError("upstream", "the stream ended without finishing");
        const part = this.translate(value);
        if (part === undefined) continue;
        if (part.type === "finish") this.stop();
        else this.arm(this.timeouts.idleMs, "no new token");
        return part;
      }
    } catch (error) {
      this.stop();
      throw this.explain(error);
    }
  }

  cancel(reason: unknown): void {
    this.stop();
    this.abort.abort(reason);
    this.reader.then((reader) => reader.cancel(reason)).catch(() => {});
  }

  private translate(part: LanguageModelV3StreamPart): CompletionPart | undefined {
    switch (part.type) {
      case "text-delta":
        return part.delta === "" ? undefined : { type: "text", text: part.delta };
      case "response-metadata":
        if (part.modelId !== undefined) this.modelId = part.modelId;
        return undefined;
      case "finish":
        return {
          type: "finish",
          finishReason: openAIFinishReason(part.finishReason.unified, part.finishReason.raw),
          usage: {
            inputTokens: part.usage.inputTokens.total,
            outputTokens: part.usage.outputTokens.total,
          },
          modelId: this.modelId,
        };
      case "error":
        throw part.error;
      default:
        return undefined;
    }
  }

  private explain(error: unknown): unknown {
    if (this.timedOut !== undefined) {
      return new ProviderError("timeout", `the model stalled: ${this.timedOut}`, { cause: error });
    }
    // The caller's own abort is not the provider's failure: it goes back as it came.
    if (this.call.signal?.aborted) return this.call.signal.reason;
    return toProviderError(error);
  }

  private arm(ms: number, what: string): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.timeOut(`${what} within ${ms} ms`), ms);
  }

  private timeOut(what: string): void {
    this.timedOut = what;
    this.abort.abort(new DOMException(what, "TimeoutError"));
    // Whatever the provider does with the abort, a pending read ends now.
    this.reader.then((reader) => reader.cancel(this.abort.signal.reason)).catch(() => {});
  }

  private stop(): void {
    this.finished = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
  }
}

/** The AI SDK's standard prompt for our messages (what `streamText` would build from them). */
function toPrompt(call: CompletionCall): LanguageModelV3Prompt {
  return call.messages.map((m) =>
    m.role === "system"
      ? { role: "system", content: m.content }
      : { role: m.role, content: [{ type: "text", text: m.content }] },
  );
}
