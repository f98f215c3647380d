import type { EndpointConfig } from "@quarry/db";
import type { ChatTurn } from "@quarry/providers";
import { renderTemplate } from "../templates/template.ts";
import type { CompletionInput } from "./completion-input.ts";

export interface ModelInput {
  /** what the model is asked */
  messages: ChatTurn[];
  /** what the log keeps as the prompt: the rendered text, or the rendered messages */
  prompt: string | ChatTurn[];
}

/**
 * The endpoint's template rendered with `values` (which include what search filled), then
 * the caller's input appended:
 * - a chat endpoint's rendered messages are followed by the request's `messages` (its
 *   history), and each `prompt` item as a user message;
 * - a completion endpoint's rendered prompt is followed by each `prompt` item (and the
 *   content of any `messages`), one per line; the model gets it as one user message.
 * The caller's own text is never rendered: `{{x}}` in a message is sent as typed.
 */
export function renderModelInput(
  config: Pick<EndpointConfig, "type" | "prompt" | "messages">,
  values: Record<string, string>,
  input: Pick<CompletionInput, "prompt" | "messages">,
): ModelInput {
  if (config.type === "chat") {
    const messages: ChatTurn[] = [
      ...(config.messages ?? []).map((m) => ({
        role: m.role,
        content: renderTemplate(m.content, values),
      })),
      ...(input.messages ?? []),
      ...(input.prompt ?? []).map((content) => ({ role: "user" as const, content })),
    ];
    return { messages, prompt: messages };
  }
  const text = [
    renderTemplate(config.prompt ?? "", values),
    ...(input.prompt ?? []),
    ...(input.messages ?? []).map((m) => m.content),
  ]
    .filter((part) => part !== "")
    .join("\n");
  return { messages: [{ role: "user", content: text }], prompt: text };
}
