/// <reference types="node" />
// Test-only: a real OpenAI-compatible HTTP server on loopback (node:http), so completions are
// tested through the real provider code and the real network stack of workerd, never by
// mocking. Used by the e2e stack (global-setup.ts), the domain tests and `pnpm bench completions`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the server does is chosen by the request's `model`, so one server shared by a whole
 * test run needs no per-test setup. `<scenario>` or `<scenario>:<n>`:
 * - `reply` (and any other name): answers `FAKE_REPLY`, streamed one word per chunk;
 * - `inspect`: answers a JSON text of what it received (`messages` or `prompt`, `user`,
 *   `temperature`, `max_tokens`, `stream`), in one chunk;
 * - `fail:<status>`: answers that status with an OpenAI error body (429 with retry-after-ms 0);
 * - `slow:<ms>`: like `reply`, waiting `ms` before each chunk;
 * - `cut:<n>`: streams `n` chunks of the reply, then (100 ms later) destroys the connection;
 * - `stall:<n>`: streams `n` chunks, then sends nothing more and never ends;
 * - `hang`: never answers at all.
 * `/chat/completions` answers in the chat format, `/completions` in the text format.
 * `GET /__requests` lists what it received (newest last), with `closed_early` set when the
 * client went away before the reply ended.
 */
export const FAKE_REPLY = "Grounded answers arrive one word at a time, as they are produced.";
export const FAKE_CREATED = 1_700_000_000;

export interface FakeRequest {
  path: string;
  body: Record<string, unknown>;
  closed_early: boolean;
}

export interface FakeOpenAI {
  /** base URL for OPENAI_BASE_URL, e.g. `http://127.0.0.1:51234/v1` */
  url: string;
  port: number;
  requests: FakeRequest[];
  close(): Promise<void>;
}

const MAX_RECORDED = 2000;

export async function startFakeOpenAI(options: { port?: number } = {}): Promise<FakeOpenAI> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = (req.url ?? "/").replace(/^\/v1/, "");
      if (req.method === "GET" && path.startsWith("/__requests")) {
        sendJson(res, 200, requests);
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        sendJson(res, 400, openAIError("invalid JSON body"));
        return;
      }
      const recorded: FakeRequest = { path, body, closed_early: false };
      requests.push(recorded);
      if (requests.length > MAX_RECORDED) requests.shift();
      res.on("close", () => {
        if (!res.writableFinished) recorded.closed_early = true;
      });
      answer(req, res, path, body).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function answer(
  _req: IncomingMessage,
  res: ServerResponse,
  path: string,
  body: Record<string, unknown>,
): Promise<void> {
  const chat = path === "/chat/completions";
  if (!chat && path !== "/completions") {
    sendJson(res, 404, openAIError(`no route ${path}`));
    return;
  }
  const model = String(body.model ?? "reply");
  const [scenario, param] = model.split(":") as [string, string | undefined];
  const n = param === undefined ? undefined : Number(param);

  if (scenario === "hang") return;
  if (scenario === "fail") {
    const status = n ?? 500;
    const headers: Record<string, string> = status === 429 ? { "retry-after-ms": "0" } : {};
    sendJson(res, status, openAIError(`scripted failure ${status}`), headers);
    return;
  }

  const input = chat ? body.messages : body.prompt;
  const reply =
    scenario === "inspect"
      ? JSON.stringify({
          [chat ? "messages" : "prompt"]: input,
          user: body.user,
          temperature: body.temperature,
          max_tokens: body.max_tokens,
          stream: body.stream === true,
        })
      : FAKE_REPLY;
  const pieces = scenario === "inspect" ? [reply] : reply.split(/(?<= )/);
  const usage = {
    prompt_tokens: words(JSON.stringify(input ?? "")),
    completion_tokens: words(reply),
    total_tokens: words(JSON.stringify(input ?? "")) + words(reply),
  };
  const base = { id: chat ? "chatcmpl-fake" : "cmpl-fake", created: FAKE_CREATED, model };

  if (body.stream !== true) {
    sendJson(res, 200, {
      ...base,
      object: chat ? "chat.completion" : "text_completion",
      choices: [
        chat
          ? { index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }
          : { index: 0, text: reply, logprobs: null, finish_reason: "stop" },
      ],
      usage,
    });
    return;
  }

  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
  const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
  const object = chat ? "chat.completion.chunk" : "text_completion";
  const choice = (text: string, finish: string | null, first: boolean) =>
    chat
      ? {
          index: 0,
          delta: first ? { role: "assistant", content: text } : finish ? {} : { content: text },
          finish_reason: finish,
        }
      : { index: 0, text, logprobs: null, finish_reason: finish };

  const delay = scenario === "slow" ? (n ?? 100) : 0;
  const stopAfter =
    scenario === "cut" || scenario === "stall" ? (n ?? 2) : Number.POSITIVE_INFINITY;
  for (const [i, piece] of pieces.entries()) {
    if (i >= stopAfter) {
      // A moment first: a client that has not read the chunks when the socket breaks loses
      // them (erroring a web stream drops its queue), and the point is a cut after text.
      if (scenario === "cut") setTimeout(() => res.destroy(), 100);
      // stall: keep the connection open, send nothing more
      return;
    }
    if (delay > 0) await sleep(delay);
    if (res.destroyed) return;
    send({ ...base, object, choices: [choice(piece, null, i === 0)] });
  }
  send({ ...base, object, choices: [choice("", "stop", false)] });
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage) send({ ...base, object, choices: [], usage });
  res.end("data: [DONE]\n\n");
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function openAIError(message: string) {
  return { error: { message, type: "server_error", param: null, code: null } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
