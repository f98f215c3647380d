import type { ChatTurn } from "@quarry/providers";

/**
 * Variables the service fills itself, from the request, so that a caller who cannot send
 * `values` (an OpenAI client) can still drive a template and a search query.
 *
 * `last_user_message`: the content of the last user turn of the caller's input, taken in the
 * order it is appended to the endpoint's template — on a chat endpoint the request's
 * `messages`, then each `prompt` item (a user turn); on a completion endpoint each `prompt`
 * item (a user turn), then the request's `messages`. Only `role: "user"` turns count; the
 * endpoint's own template messages never do. Absent when the request has no user turn.
 */
export const LAST_USER_MESSAGE = "last_user_message";

export const BUILTIN_VARIABLES: readonly string[] = [LAST_USER_MESSAGE];

export function isBuiltinVariable(name: string): boolean {
  return BUILTIN_VARIABLES.includes(name);
}

/** What the built-in variables hold for one request; a variable without a value is absent. */
export function builtinValues(
  endpointType: "chat" | "completion",
  input: { prompt?: string[] | undefined; messages?: ChatTurn[] | undefined },
): Record<string, string> {
  const prompts: ChatTurn[] = (input.prompt ?? []).map((content) => ({ role: "user", content }));
  const messages = input.messages ?? [];
  const turns = endpointType === "chat" ? [...messages, ...prompts] : [...prompts, ...messages];
  const last = turns.findLast((turn) => turn.role === "user");
  return last === undefined ? {} : { [LAST_USER_MESSAGE]: last.content };
}
