import { baseUrl } from "./client.ts";
import { withinReplyDeadline } from "./reply-deadline.ts";

export interface SseFrame {
  /** the frame exactly as sent, without its terminating blank line */
  raw: string;
  /** the `data:` payload */
  data: string;
  /** milliseconds from the request's start to the frame's arrival */
  at: number;
}

export interface SseReply {
  status: number;
  headers: Headers;
  frames: SseFrame[];
  /** the body as received, byte for byte (decoded) */
  text: string;
}

/**
 * POSTs `body` and reads the reply frame by frame as bytes arrive (the way Hono's own SSE
 * tests do), timing each frame. `stopAfter` aborts the request after that many frames,
 * which is a client disconnecting mid-stream. The whole stream is under the reply deadline the
 * JSON calls have, so a stream that stops coming fails with the workers' last log lines rather
 * than at the test's own timeout with none.
 */
export function postSse(
  path: string,
  body: unknown,
  token: string,
  options: { stopAfter?: number } = {},
): Promise<SseReply> {
  return withinReplyDeadline(`POST ${path} (event stream)`, (deadline) =>
    readSse(path, body, token, options, deadline),
  );
}

async function readSse(
  path: string,
  body: unknown,
  token: string,
  options: { stopAfter?: number },
  deadline: AbortSignal,
): Promise<SseReply> {
  const started = performance.now();
  const abort = new AbortController();
  const res = await fetch(`${baseUrl()}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.any([abort.signal, deadline]),
  });
  const frames: SseFrame[] = [];
  let text = "";
  if (!res.body) return { status: res.status, headers: res.headers, frames, text };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      buffer += chunk;
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = raw.startsWith("data: ") ? raw.slice(6) : "";
        frames.push({ raw, data, at: performance.now() - started });
        end = buffer.indexOf("\n\n");
      }
      if (options.stopAfter !== undefined && frames.length >= options.stopAfter) {
        abort.abort();
        break;
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  }
  if (buffer !== "" && !abort.signal.aborted) throw new Error(`unterminated frame: ${buffer}`);
  return { status: res.status, headers: res.headers, frames, text };
}
