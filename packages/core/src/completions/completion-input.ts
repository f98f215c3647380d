import type { ChatTurn } from "@quarry/providers";
import { z } from "zod";
import { isBuiltinVariable } from "../templates/builtin-variables.ts";

export const MAX_USER_CHARS = 256;

const TEXT_PARTS_ONLY = 'only text parts {type: "text", text} are supported';

/** OpenAI's list-of-parts content; only text parts, whose texts are joined. */
const TextPart = z
  .object(
    {
      type: z.literal("text", { error: TEXT_PARTS_ONLY }),
      text: z.string({ error: TEXT_PARTS_ONLY }),
    },
    { error: TEXT_PARTS_ONLY },
  )
  .loose();

const MessageContent = z
  .union([z.string(), z.array(TextPart)], { error: "must be a string" })
  .transform((content) =>
    typeof content === "string" ? content : content.map((part) => part.text).join(""),
  );

const Message = z
  .object(
    {
      // `developer` is OpenAI's newer name for the system role.
      role: z
        .enum(["system", "user", "assistant", "developer"], {
          error: "must be system, user or assistant",
        })
        .transform((role) => (role === "developer" ? "system" : role)),
      content: MessageContent,
    },
    { error: "must be an object {role, content}" },
  )
  .loose()
  // A turn is its role and content; other fields OpenAI clients send are not logged.
  .transform(({ role, content }): ChatTurn => ({ role, content }));

/** OpenAI's `prompt`: a string (one item) or a list of strings; token arrays are not supported. */
const Prompt = z
  .union([z.string(), z.array(z.string({ error: "must be a string" }))], {
    error: "must be a string or a list of strings",
  })
  .nullable()
  .optional()
  .transform((prompt) =>
    prompt == null ? undefined : typeof prompt === "string" ? [prompt] : prompt,
  );

const Values = z
  .record(z.string(), z.unknown(), { error: "must be an object" })
  .superRefine((values, ctx) => {
    // The request itself fills a built-in variable; a second source would leave the caller
    // guessing which one the template got.
    for (const name of Object.keys(values).filter(isBuiltinVariable)) {
      ctx.addIssue({
        code: "custom",
        message:
          "is built in: it holds the last user message of the request; send that text as a user message (messages or prompt) instead",
        path: [name],
      });
    }
  })
  .nullable()
  .optional();

/**
 * E4's body as sent. Only E4's own fields are read; anything else an OpenAI client sends
 * (`model`, `stop`, `stream_options`, `n`, …) is accepted and ignored, because the deployed
 * endpoint decides the model and its settings (docs/api.md#e4-completions). `null` is the
 * same as leaving a field out.
 */
export const CompletionRequest = z
  .object({
    values: Values,
    prompt: Prompt,
    messages: z
      .array(Message, { error: "must be a list of {role, content}" })
      .nullable()
      .optional()
      .transform((messages) => messages ?? undefined),
    stream: z.boolean({ error: "must be a boolean" }).nullable().optional(),
    user: z
      .string({ error: `must be a string of at most ${MAX_USER_CHARS} characters` })
      .max(MAX_USER_CHARS, { error: `must be a string of at most ${MAX_USER_CHARS} characters` })
      .nullable()
      .optional(),
  })
  .loose()
  .superRefine((body, ctx) => {
    if (body.prompt === undefined && body.messages === undefined) {
      ctx.addIssue({
        code: "custom",
        message: "one of prompt or messages is required",
        path: ["messages"],
      });
    }
  });

/** E4's body, validated, as the completion reads it. */
export const CompletionInput = CompletionRequest.transform((body) => ({
  /** template values as text: strings as given, other JSON values as JSON text */
  values: valuesAsText(body.values),
  /** the values as the caller sent them, for the log */
  rawValues: body.values ?? null,
  /** completion-style input */
  prompt: body.prompt,
  /** chat history to append to the endpoint's messages */
  messages: body.messages,
  stream: body.stream === true,
  /** the end user, passed to the provider and logged as the log's user */
  user: body.user ?? undefined,
}));
export type CompletionInput = z.output<typeof CompletionInput>;

function valuesAsText(values: Record<string, unknown> | null | undefined): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(values ?? {})) {
    // null says "no value": the variable counts as missing.
    if (value === null || value === undefined) continue;
    text[name] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return text;
}
