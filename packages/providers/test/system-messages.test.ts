import { generateText } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLanguageModel, generateCompletion, streamCompletion } from "../src/index.ts";

/**
 * The AI SDK prints a console warning whenever `messages` hold a system message (it prefers
 * its `system` option). Endpoints send system messages on purpose — a template's, or the
 * caller's history, in order — so our calls say so and nothing is printed; the SDK's default
 * stays as it is for any other caller.
 */
const echo = createLanguageModel("local/echo", {});
const chat = [
  { role: "system" as const, content: "Answer from the notes." },
  { role: "user" as const, content: "Why tides?" },
];

/** Everything written to the console while `run` runs. */
async function consoleOutput(run: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    }),
  );
  try {
    await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe("system messages we send on purpose", () => {
  it("the AI SDK warns about them by default (what this guards against)", async () => {
    const output = await consoleOutput(() => generateText({ model: echo, messages: chat }));
    expect(output.join("\n")).toMatch(/System messages in the prompt or messages/);
  });

  it("generateCompletion sends them without a console warning", async () => {
    let text = "";
    const output = await consoleOutput(async () => {
      text = (await generateCompletion(echo, { messages: chat })).text;
    });
    expect(text).toBe("system: Answer from the notes.\nuser: Why tides?");
    expect(output).toEqual([]);
  });

  it("streamCompletion sends them without a console warning", async () => {
    const output = await consoleOutput(async () => {
      const reader = (await streamCompletion(echo, { messages: chat })).getReader();
      while (!(await reader.read()).done) {
        // drain
      }
    });
    expect(output).toEqual([]);
  });
});
