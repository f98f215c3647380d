import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";

/**
 * The prompt as plain text, which is what `local/echo` answers: a lone user message is its
 * content; anything else (a chat, or a prompt with a system message) is one `role: content`
 * line per message, so a template's rendering can be inspected exactly.
 */
export function renderPrompt(prompt: LanguageModelV3Prompt): string {
  const [only] = prompt;
  if (prompt.length === 1 && only?.role === "user") return renderContent(only);
  return prompt.map((message) => `${message.role}: ${renderContent(message)}`).join("\n");
}

function renderContent(message: LanguageModelV3Message): string {
  if (message.role === "system") return message.content;
  const parts: string[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        parts.push(part.text);
        break;
      case "file":
        parts.push(`[file ${part.filename ?? part.mediaType}]`);
        break;
      case "tool-call":
        parts.push(`[tool-call ${part.toolName} ${JSON.stringify(part.input)}]`);
        break;
      case "tool-result":
        parts.push(`[tool-result ${part.toolName} ${JSON.stringify(part.output)}]`);
        break;
      case "tool-approval-response":
        parts.push(`[tool-approval ${part.approvalId} ${part.approved ? "approved" : "denied"}]`);
        break;
      // Reasoning is the model's scratchpad, not part of what was said.
      case "reasoning":
        break;
    }
  }
  return parts.join("\n");
}
