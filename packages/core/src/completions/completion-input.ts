import type { ChatTurn } from "@quarry/providers";
import { BadRequestError } from "../shared/errors.ts";
import { isBuiltinVariable } from "../templates/builtin-variables.ts";

/**
 * E4's body, validated. Only E4's own fields are read; anything else an OpenAI client sends
 * (`model`, `stop`, `stream_options`, `n`, …) is accepted and ignored, because the deployed
 * endpoint decides the model and its settings (docs/api.md#e4-completions).
 */
export interface CompletionInput {
  /** template values as text: strings as given, other JSON values as JSON text */
  values: Record<string, string>;
  /** the values as the caller sent them, for the log */
  rawValues: Record<string, unknown> | null;
  /** completion-style input (a string is one item) */
  prompt: string[] | undefined;
  /** chat history to append to the endpoint's messages */
  messages: ChatTurn[] | undefined;
  stream: boolean;
  /** the end user, passed to the provider and logged as the log's user */
  user: string | undefined;
}

export const MAX_USER_CHARS = 256;
const ROLES = new Set(["system", "user", "assistant"]);

export function parseCompletionInput(body: unknown): CompletionInput {
  if (!isObject(body)) throw new BadRequestError("must be a JSON object", "body");
  const prompt = parsePrompt(body.prompt);
  const messages = parseMessages(body.messages);
  if (prompt === undefined && messages === undefined) {
    throw new BadRequestError("one of prompt or messages is required", "messages");
  }
  const { values, raw } = parseValues(body.values);
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") {
    throw new BadRequestError("must be a boolean", "stream");
  }
  const user = body.user ?? undefined;
  if (user !== undefined && (typeof user !== "string" || user.length > MAX_USER_CHARS)) {
    throw new BadRequestError(`must be a string of at most ${MAX_USER_CHARS} characters`, "user");
  }
  return { values, rawValues: raw, prompt, messages, stream: body.stream === true, user };
}

function parseValues(value: unknown): {
  values: Record<string, string>;
  raw: Record<string, unknown> | null;
} {
  if (value === undefined || value === null) return { values: {}, raw: null };
  if (!isObject(value)) throw new BadRequestError("must be an object", "values");
  const values: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    // The request itself fills a built-in variable; a second source would leave the caller
    // guessing which one the template got.
    if (isBuiltinVariable(name)) {
      throw new BadRequestError(
        "is built in: it holds the last user message of the request; send that text as a user message (messages or prompt) instead",
        `values.${name}`,
      );
    }
    // null says "no value": the variable counts as missing.
    if (v === null || v === undefined) continue;
    values[name] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return { values, raw: value };
}

/** OpenAI's `prompt`: a string or a list of strings (token arrays are not supported). */
function parsePrompt(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return [value];
  if (!Array.isArray(value))
    throw new BadRequestError("must be a string or a list of strings", "prompt");
  return value.map((item, i) => {
    if (typeof item !== "string") throw new BadRequestError("must be a string", `prompt[${i}]`);
    return item;
  });
}

/** `{role, content}` items; content may also be OpenAI's list of `{type: "text", text}` parts. */
function parseMessages(value: unknown): ChatTurn[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    throw new BadRequestError("must be a list of {role, content}", "messages");
  return value.map((item, i) => {
    const path = `messages[${i}]`;
    if (!isObject(item)) throw new BadRequestError("must be an object {role, content}", path);
    // OpenAI's newer name for the system role.
    const role = item.role === "developer" ? "system" : item.role;
    if (typeof role !== "string" || !ROLES.has(role)) {
      throw new BadRequestError("must be system, user or assistant", `${path}.role`);
    }
    return {
      role: role as ChatTurn["role"],
      content: parseContent(item.content, `${path}.content`),
    };
  });
}

function parseContent(value: unknown, path: string): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value
      .map((part, i) => {
        if (isObject(part) && part.type === "text" && typeof part.text === "string")
          return part.text;
        throw new BadRequestError(
          'only text parts {type: "text", text} are supported',
          `${path}[${i}]`,
        );
      })
      .join("");
  }
  throw new BadRequestError("must be a string", path);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
