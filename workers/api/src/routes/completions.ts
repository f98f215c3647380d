import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  type CompletionInput,
  type CompletionOptions,
  completeEndpoint,
  streamEndpoint,
} from "@quarry/core";
import type { Context } from "hono";
import type { HonoEnv } from "../http/hono-env.ts";
import { errorResponse, errorResponses, jsonBody, projectSecurity } from "../http/openapi.ts";
import { CompletionBody, CompletionResponseSchema } from "../http/schemas/completions.ts";
import { EndpointParams } from "../http/schemas/management.ts";
import { sseResponse } from "../http/sse.ts";

const tags = ["Completions"];

const replies = {
  200: {
    description:
      "A Completion, or with `stream: true` Server-Sent Events: OpenAI chunks (when the endpoint searches, the last one, with the finish reason and `usage`, also carries `search_results`, which OpenAI's clients keep on the chunk object), `[DONE]`, then `{choices: [], search_results, usage_id}` when the endpoint searches",
    content: {
      "application/json": { schema: CompletionResponseSchema },
      "text/event-stream": { schema: { type: "string" as const } },
    },
  },
  ...errorResponses,
  502: errorResponse("The model provider failed or did not answer in time (logged)"),
};

const completionsRoute = createRoute({
  method: "post",
  path: "/api/endpoints/{id}/completions",
  operationId: "createCompletion",
  tags,
  summary: "E4 Completion from an endpoint (JSON, or SSE with stream: true)",
  description:
    'Streams are `text_completion` chunks for prompt-style endpoints and `chat.completion.chunk` chunks for chat-style ones. Templates and search queries may use the built-in `{{last_user_message}}`: the content of the request\'s last user turn (`role: "user"` messages and `prompt` items, in the order they are appended to the template), so OpenAI clients, which cannot send `values`, can drive a search.',
  security: projectSecurity,
  request: { params: EndpointParams, body: jsonBody(CompletionBody) },
  responses: replies,
});

const chatCompletionsRoute = createRoute({
  method: "post",
  path: "/api/endpoints/{id}/chat/completions",
  operationId: "createChatCompletion",
  tags,
  summary: "E4 for OpenAI chat clients: the same completion in the chat format",
  description:
    "Where OpenAI's clients post a chat call when their base URL is `…/api/endpoints/{id}`: choices also carry `message`, and streams are `chat.completion.chunk` chunks. An endpoint whose search query is `{{last_user_message}}` needs no `values`.",
  security: projectSecurity,
  request: { params: EndpointParams, body: jsonBody(CompletionBody) },
  responses: replies,
});

export function registerCompletions(app: OpenAPIHono<HonoEnv>) {
  app.openapi(completionsRoute, (c) => complete(c, c.req.valid("param").id, c.req.valid("json")));
  app.openapi(chatCompletionsRoute, (c) =>
    complete(c, c.req.valid("param").id, c.req.valid("json"), "chat"),
  );
}

async function complete(
  c: Context<HonoEnv>,
  endpointId: string,
  input: CompletionInput,
  format?: CompletionOptions["format"],
) {
  const options: CompletionOptions = { callerId: c.var.caller.keyId };
  if (!input.stream) {
    // E4's JSON reply is the text completion, whatever the endpoint's style
    // (docs/api.md#e4-completions).
    const reply = await completeEndpoint(c.var.project, endpointId, input, {
      ...options,
      format: format ?? "text",
    });
    return c.json(reply, 200);
  }
  const stream = await streamEndpoint(c.var.project, endpointId, input, {
    ...options,
    ...(format ? { format } : {}),
  });
  // The log row is written when the stream ends, which may be after the response is done
  // (the client went away): keep the worker and its database connection until then.
  c.executionCtx.waitUntil(stream.logged);
  c.var.services.defer(stream.logged);
  return sseResponse(c, stream.events);
}
