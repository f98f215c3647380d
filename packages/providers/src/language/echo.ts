import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { renderPrompt } from "./render-prompt.ts";
import { countTokens, truncateToTokens } from "./tokens.ts";

export const LOCAL_ECHO_MODEL_ID = "local/echo";

interface EchoResponse {
  text: string;
  finishReason: LanguageModelV3FinishReason;
  usage: LanguageModelV3Usage;
  warnings: SharedV3Warning[];
}

/**
 * `local/echo`: an offline, deterministic language model whose completion is the rendered
 * prompt (see `renderPrompt`). It honours `stopSequences` and `maxOutputTokens` the way a real
 * model would, so the code around it (streaming, logging, usage, limits) is exercised for real.
 */
export class EchoLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  readonly provider = "local";
  readonly modelId = "echo";
  // No URLs are fetched natively; the AI SDK downloads any file parts before calling us.
  readonly supportedUrls: Record<string, RegExp[]> = {};

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    options.abortSignal?.throwIfAborted();
    const { text, finishReason, usage, warnings } = respond(options);
    return {
      content: text === "" ? [] : [{ type: "text", text }],
      finishReason,
      usage,
      warnings,
      response: { modelId: this.modelId },
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    options.abortSignal?.throwIfAborted();
    const { text, finishReason, usage, warnings } = respond(options);
    const id = "text-0";
    const parts: LanguageModelV3StreamPart[] = [
      { type: "stream-start", warnings },
      { type: "response-metadata", modelId: this.modelId },
    ];
    if (text !== "") {
      parts.push({ type: "text-start", id });
      for (const delta of wordChunks(text)) parts.push({ type: "text-delta", id, delta });
      parts.push({ type: "text-end", id });
    }
    parts.push({ type: "finish", finishReason, usage });

    // Pull-based, one part per pull: the consumer sees the text arrive in pieces, and an
    // abort between pieces stops the stream like a real model's.
    let next = 0;
    const signal = options.abortSignal;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      pull(controller) {
        if (signal?.aborted) {
          controller.error(signal.reason);
          return;
        }
        const part = parts[next++];
        if (part === undefined) controller.close();
        else controller.enqueue(part);
      },
    });
    return { stream };
  }
}

function respond(options: LanguageModelV3CallOptions): EchoResponse {
  const prompt = renderPrompt(options.prompt);
  let text = cutAtStopSequence(prompt, options.stopSequences);
  let reason: LanguageModelV3FinishReason["unified"] = "stop";
  if (options.maxOutputTokens !== undefined) {
    const limited = truncateToTokens(text, options.maxOutputTokens);
    text = limited.text;
    if (limited.truncated) reason = "length";
  }

  const inputTokens = countTokens(prompt);
  const outputTokens = countTokens(text);
  return {
    text,
    finishReason: { unified: reason, raw: reason },
    usage: {
      // Nothing is cached, so every input token is a non-cached one.
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
    },
    warnings: unsupportedSettings(options),
  };
}

function cutAtStopSequence(text: string, stopSequences: string[] | undefined): string {
  let end = text.length;
  for (const stop of stopSequences ?? []) {
    if (stop === "") continue;
    const at = text.indexOf(stop);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}

/** Splits after each run of whitespace: "a b\nc" → "a ", "b\n", "c"; joined, they are `text`. */
function wordChunks(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/);
}

function unsupportedSettings(options: LanguageModelV3CallOptions): SharedV3Warning[] {
  const warnings: SharedV3Warning[] = [];
  if (options.tools?.length) {
    warnings.push({
      type: "unsupported",
      feature: "tools",
      details: "local/echo never calls tools",
    });
  }
  if (options.responseFormat?.type === "json") {
    warnings.push({
      type: "unsupported",
      feature: "responseFormat",
      details: "local/echo returns the prompt as text",
    });
  }
  return warnings;
}
