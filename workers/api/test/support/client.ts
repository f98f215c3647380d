import { inject } from "vitest";
import { resendAfterDevProxyRestart } from "./dev-proxy.ts";
import { type RawReply, sendRaw } from "./raw-request.ts";
import { HangError, stackLogTail, withinReplyDeadline } from "./reply-deadline.ts";

export const baseUrl = () => inject("baseUrl");
export const adminToken = () => inject("adminToken");

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  method?: string;
  /** an object is sent as JSON; a string is sent as is */
  body?: unknown;
  /** bearer token; `null` sends no Authorization header */
  token?: string | null;
  headers?: Record<string, string>;
}

/** One HTTP call to the stack under test; parses JSON replies and keeps the raw text. */
export async function call<T = any>(path: string, options: CallOptions = {}): Promise<Reply<T>> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("authorization", `Bearer ${options.token}`);
  let body: string | undefined;
  if (typeof options.body === "string") body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const label = `${options.method ?? "GET"} ${path}`;
  return resendAfterDevProxyRestart(label, () =>
    withinReplyDeadline(label, async (signal) => {
      const res = await fetch(`${baseUrl()}${path}`, {
        method: options.method ?? "GET",
        headers,
        body,
        signal,
      });
      const text = await res.text();
      let parsed: unknown = text;
      if (res.headers.get("content-type")?.includes("json") && text) parsed = JSON.parse(text);
      return { status: res.status, headers: res.headers, body: parsed as T, text };
    }),
  );
}

export function admin<T = any>(path: string, options: Omit<CallOptions, "token"> = {}) {
  return call<T>(path, { ...options, token: adminToken() });
}

/** Asserts the error envelope (docs/api.md#errors) and returns it. */
export function expectEnvelope(reply: Reply, status: number, code: string) {
  const requestId = reply.headers.get("x-request-id");
  const problems: string[] = [];
  if (reply.status !== status) problems.push(`status ${reply.status} != ${status}`);
  if (!requestId) problems.push("no X-Request-Id header");
  const error = (reply.body as { error?: Record<string, unknown> })?.error;
  if (!error) problems.push("no error object");
  else {
    if (error.code !== code) problems.push(`code ${String(error.code)} != ${code}`);
    if (typeof error.message !== "string" || error.message.length === 0)
      problems.push("no message");
    if (error.request_id !== requestId) problems.push("request_id differs from header");
  }
  if (problems.length > 0) throw new Error(`${problems.join("; ")}\nreply: ${reply.text}`);
  return error as { code: string; message: string; request_id: string };
}

/**
 * GET with a JSON body, as the original contract sends E6 and E7 (docs/api.md#pagination). `fetch`
 * refuses bodies on GET, so this goes through `sendRaw` (HTTP/1.1 on a connection of its own,
 * the reply deadline, the resend after the dev proxy's 502 or 503).
 */
export async function getWithBody<T = any>(
  path: string,
  body: unknown,
  token: string,
): Promise<Reply<T>> {
  const label = `GET ${path} (with a body)`;
  let reply: RawReply;
  try {
    reply = await sendRaw({
      method: "GET",
      path,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (error) {
    if (!(error instanceof HangError)) throw error;
    throw new HangError(`${error.message}\n${await stackLogTail(30)}`);
  }
  if (
    reply.json === undefined &&
    reply.text &&
    reply.headers.get("content-type")?.includes("json")
  ) {
    throw new Error(`${label}: a JSON reply that does not parse: ${reply.text.slice(0, 200)}`);
  }
  const parsed = reply.json === undefined ? reply.text : reply.json;
  return { status: reply.status, headers: reply.headers, body: parsed as T, text: reply.text };
}
