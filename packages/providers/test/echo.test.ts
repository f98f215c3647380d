import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { countTokens, createLanguageModel } from "../src/index.ts";

const echo = createLanguageModel("local/echo", {});

describe("local/echo", () => {
  it("answers a prompt with the prompt itself, with token counts", async () => {
    const prompt = "Summarise: Quarry stores text datasets, and searches them.";
    const result = await generateText({ model: echo, prompt });

    expect(result.text).toBe(prompt);
    expect(result.finishReason).toBe("stop");
    // words + "," + "." + ":" — the tokenizer counts punctuation marks separately
    expect(result.usage.inputTokens).toBe(11);
    expect(result.usage.outputTokens).toBe(11);
    expect(result.usage.totalTokens).toBe(22);
    expect(result.usage.inputTokenDetails).toEqual({
      noCacheTokens: 11,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(result.usage.outputTokenDetails).toEqual({ textTokens: 11, reasoningTokens: 0 });
  });

  it("renders a chat as role: content lines", async () => {
    const result = await generateText({
      model: echo,
      system: "You answer from the context.",
      messages: [
        { role: "user", content: "What is Quarry?" },
        { role: "assistant", content: "A hosted API for text datasets." },
        { role: "user", content: "Say more." },
      ],
    });
    expect(result.text).toBe(
      [
        "system: You answer from the context.",
        "user: What is Quarry?",
        "assistant: A hosted API for text datasets.",
        "user: Say more.",
      ].join("\n"),
    );
    expect(result.usage.inputTokens).toBe(countTokens(result.text));
  });

  it("streams the same text in several deltas with a final usage", async () => {
    const prompt = "one two three four five, six.\nseven";
    const result = streamText({ model: echo, prompt });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);

    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe(prompt);
    expect(await result.text).toBe(prompt);
    expect(await result.finishReason).toBe("stop");
    const usage = await result.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBe(countTokens(prompt));
  });

  it("emits well-formed V3 stream parts", async () => {
    const { stream } = await echo.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "a b" }] }],
    });
    const parts: LanguageModelV3StreamPart[] = [];
    // Read by hand: TypeScript's DOM lib does not declare ReadableStream async-iterable.
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      parts.push(next.value);
    }
    expect(parts.map((part) => part.type)).toEqual([
      "stream-start",
      "response-metadata",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(parts.at(-1)).toEqual({
      type: "finish",
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 2, noCache: 2, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 2, text: 2, reasoning: 0 },
      },
    });
  });

  it("stops at maxOutputTokens with finish reason length, and at stop sequences", async () => {
    const limited = await generateText({
      model: echo,
      prompt: "alpha beta gamma delta",
      maxOutputTokens: 2,
    });
    expect(limited.text).toBe("alpha beta");
    expect(limited.finishReason).toBe("length");
    expect(limited.usage.outputTokens).toBe(2);
    expect(limited.usage.inputTokens).toBe(4);

    const stopped = await generateText({
      model: echo,
      prompt: "answer ### ignored",
      stopSequences: ["###"],
    });
    expect(stopped.text).toBe("answer ");
    expect(stopped.finishReason).toBe("stop");
  });

  it("is deterministic", async () => {
    const run = () => generateText({ model: echo, prompt: "same in, same out" });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.text).toBe(b.text);
    expect(a.usage).toEqual(b.usage);
  });
});
