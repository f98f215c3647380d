import { readFile } from "node:fs/promises";
import { Client as NeonClient, neonConfig } from "@neondatabase/serverless";
import { WebSocket } from "ws";
import type { Stack } from "../../../../packages/local-stack/src/stack.ts";
import { describeStackSession } from "../../../../packages/local-stack/src/stack-session-report.ts";
import type { FakeOpenAI } from "./fake-openai-server.ts";
import { sendRaw } from "./raw-request.ts";
import { HangError, lastLines } from "./reply-deadline.ts";
import { startTestStack } from "./test-stack.ts";

/**
 * The fault suite's own stack (hardening-faults.test.ts): the shared e2e stack must not have
 * its ingest worker failing on purpose or its database connections cut, so this file starts
 * a second one (free port, throwaway DATA_DIR) with INGEST_FAULT_RATE set, its own loopback
 * OpenAI-compatible server, and direct SQL through the server the workers reach the database
 * by (`stack.pg`). Like the e2e stack it runs on PGlite, or with QUARRY_TEST_DATABASE_URL on a
 * fresh native database; the connection faults (`stack.pg.faults`) exist on both: PGlite's
 * loopback server cuts its connections, the native proxy its WebSocket pipes and requests.
 */
export interface FaultStack {
  stack: Stack;
  openai: FakeOpenAI;
  /** HTTP to this stack; every call has a deadline, so a hang fails instead of waiting */
  call<T = any>(path: string, options?: CallOptions): Promise<Reply<T>>;
  /**
   * one SQL query on a fresh connection, through `stack.pg` (on PGlite it takes its turn for
   * the one session; a connection fault may cut it too)
   */
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  /**
   * POSTs with `stream: true` and reads the reply to its end: SSE frames (their `data`), or
   * the JSON body of an error reply. A deadline turns a stream that never ends into a
   * HangError.
   */
  stream(
    path: string,
    body: Record<string, unknown>,
    token: string,
    timeoutMs?: number,
  ): Promise<StreamReply>;
  /** the wrangler output so far (worker logs) */
  wranglerLog(): Promise<string>;
  /** the reply, and for a 5xx what the workers logged under its request id */
  explain(reply: Reply): Promise<string>;
  /** a project and its key */
  tenant(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  token?: string;
  /** default 20 s */
  timeoutMs?: number;
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface StreamReply {
  status: number;
  headers: Headers;
  /** `data` of every SSE frame, in order (empty for a JSON reply) */
  frames: string[];
  /** the parsed body of a JSON (error) reply */
  body: unknown;
  text: string;
}

export async function startFaultStack(options: {
  ingestFaultRate: number;
  /** how long the workers wait for a silent database (DATABASE_TIMEOUT_SECONDS) */
  databaseTimeoutSeconds: number;
}): Promise<FaultStack> {
  const started = await startTestStack({
    label: "faults",
    // its hang diagnosis reads the last connections' lives
    databaseServerLog: true,
    vars: {
      INGEST_FAULT_RATE: String(options.ingestFaultRate),
      DATABASE_TIMEOUT_SECONDS: String(options.databaseTimeoutSeconds),
    },
  });
  const { stack, openai, logFile, stackLogFile, databaseServerLogFile } = started;
  const baseUrl = stack.baseUrl;

  neonConfig.webSocketConstructor = WebSocket;
  neonConfig.wsProxy = (host, port) => `127.0.0.1:${stack.pg.wsPort}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;

  /**
   * What a hang leaves to read: who holds PGlite's one session (a connection, the embedded
   * maintenance and its statement, or an SQL-over-HTTP statement) and the last lines the
   * stack, the loopback database server and the workers logged.
   */
  async function hangDiagnosis(): Promise<string> {
    const parts: string[] = [];
    parts.push(describeStackSession(stack));
    parts.push(`stack log, last lines:\n${await lastLines(stackLogFile, 20)}`);
    if (databaseServerLogFile) {
      parts.push(`database server log, last lines:\n${await lastLines(databaseServerLogFile, 30)}`);
    }
    parts.push(`wrangler log, last lines:\n${await lastLines(logFile, 30)}`);
    return parts.join("\n");
  }

  async function call<T>(path: string, opts: CallOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] = "application/json";
    }
    const timeoutMs = opts.timeoutMs ?? 20_000;
    const method = opts.method ?? "GET";
    try {
      // A connection per request (sendRaw): after the cuts, a reply that breaks off must be the
      // stack's doing, not a kept-alive socket's that the client reused as it closed.
      const reply = await sendRaw({ method, path, headers, body }, timeoutMs, baseUrl);
      const parsed = reply.json === undefined ? reply.text : reply.json;
      return { status: reply.status, headers: reply.headers, body: parsed as T, text: reply.text };
    } catch (error) {
      if (error instanceof HangError) {
        throw new HangError(
          `${method} ${path}: no reply within ${timeoutMs} ms\n${await hangDiagnosis()}`,
        );
      }
      throw new Error(
        `${method} ${path}: ${(error as Error).message}\nwrangler log, last lines:\n${await lastLines(logFile, 30)}`,
      );
    }
  }

  async function stream(
    path: string,
    body: Record<string, unknown>,
    token: string,
    timeoutMs = 45_000,
  ): Promise<StreamReply> {
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ ...body, stream: true }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
        const parsed = res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
        return { status: res.status, headers: res.headers, frames: [], body: parsed, text };
      }
      if (text !== "" && !text.endsWith("\n\n")) throw new Error(`unterminated frame: ${text}`);
      const frames = text
        .split("\n\n")
        .filter((frame) => frame !== "")
        .map((frame) => {
          if (!frame.startsWith("data: ")) throw new Error(`not a data frame: ${frame}`);
          return frame.slice(6);
        });
      return { status: res.status, headers: res.headers, frames, body: undefined, text };
    } catch (error) {
      if ((error as Error).name === "TimeoutError") {
        throw new HangError(
          `POST ${path} (stream): not ended within ${timeoutMs} ms\n${await hangDiagnosis()}`,
        );
      }
      throw error;
    }
  }

  return {
    stack,
    openai,
    call,
    stream,
    async sql<T>(query: string, params: unknown[] = []) {
      const client = new NeonClient(stack.databaseUrl);
      await client.connect();
      try {
        return (await client.query(query, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    wranglerLog: () => readFile(logFile, "utf8"),
    async explain(reply) {
      const requestId = reply.headers.get("x-request-id");
      if (reply.status < 500 || !requestId) return `${reply.status} ${reply.text}`;
      const lines = (await readFile(logFile, "utf8")).split("\n");
      const logged = lines.filter((line) => line.includes(requestId));
      return `${reply.status} ${reply.text}\nthe workers' log for ${requestId}:\n${logged.join("\n") || "(nothing)"}`;
    },
    async tenant(name) {
      const token = stack.adminToken;
      const project = await call<{ id: string }>("/admin/projects", {
        method: "POST",
        body: { name },
        token,
      });
      if (project.status !== 201) throw new Error(`create project: ${project.text}`);
      const key = await call<{ key: string }>(`/admin/projects/${project.body.id}/keys`, {
        method: "POST",
        body: { name: `${name}-key` },
        token,
      });
      if (key.status !== 201) throw new Error(`create key: ${key.text}`);
      return key.body.key;
    },
    async close() {
      await started.stop();
    },
  };
}

/** Asserts the error envelope (docs/api.md#errors) and its request id on a non-2xx reply. */
export function envelopeProblems(reply: Reply): string[] {
  const problems: string[] = [];
  const requestId = reply.headers.get("x-request-id");
  const error = (reply.body as { error?: Record<string, unknown> } | undefined)?.error;
  if (!requestId) problems.push("no X-Request-Id");
  if (!error) problems.push(`no error envelope: ${reply.text.slice(0, 200)}`);
  else {
    if (typeof error.code !== "string") problems.push("no code");
    if (typeof error.message !== "string" || error.message === "") problems.push("no message");
    if (error.request_id !== requestId) problems.push("request_id differs from the header");
  }
  return problems;
}
