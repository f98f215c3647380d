import http from "node:http";
import { HttpError, resendOnStaleSocket, staleSocketAware } from "../../harness/http.ts";

export interface StreamTiming {
  /** request start → the first SSE frame carrying text */
  ttfbMs: number;
  /** request start → the end of the body */
  totalMs: number;
  text: string;
  frames: number;
  /** whether the stream ended with `data: [DONE]` (a stream that failed mid-way does not) */
  done: boolean;
  /** the `usage_id` of the first choice (the log id), when the chunks carry one */
  usageId: string | undefined;
}

/**
 * POSTs a streaming completion and times it as a client sees it, on a keep-alive agent:
 * the time to the first `data:` frame with text (OpenAI's `choices[0].text` or
 * `choices[0].delta.content`), and to the end. Any non-200 reply throws an `HttpError`. A
 * request that dies on a pooled socket the server had closed is sent again, as the JSON
 * client's are (`resendOnStaleSocket`): under `pnpm bench load` one stream in ~1,300 did.
 */
export function timeStream(
  agent: http.Agent,
  url: string,
  body: unknown,
  token: string,
): Promise<StreamTiming> {
  const payload = Buffer.from(JSON.stringify(body));
  return resendOnStaleSocket(() => streamOnce(agent, url, payload, token));
}

function streamOnce(
  agent: http.Agent,
  url: string,
  payload: Buffer,
  token: string,
): Promise<StreamTiming> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const since = () => Number(process.hrtime.bigint() - start) / 1e6;
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "content-length": payload.length,
        },
      },
      (res) => {
        let buffer = "";
        let text = "";
        let frames = 0;
        let done = false;
        let usageId: string | undefined;
        let ttfbMs: number | undefined;
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf("\n\n");
          while (end !== -1) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf("\n\n");
            frames++;
            if (frame === "data: [DONE]") done = true;
            usageId ??= usageIdOf(frame);
            const piece = textOf(frame);
            if (piece) {
              ttfbMs ??= since();
              text += piece;
            }
          }
        });
        res.on("error", reject);
        res.on("end", () => {
          if (res.statusCode !== 200) {
            reject(new HttpError("POST", url, res.statusCode ?? 0, buffer.slice(0, 2000)));
          } else if (ttfbMs === undefined) {
            reject(new Error(`${url} streamed no text`));
          } else {
            resolve({ ttfbMs, totalMs: since(), text, frames, done, usageId });
          }
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => reject(staleSocketAware(req, error)));
    req.end(payload);
  });
}

function usageIdOf(frame: string): string | undefined {
  const at = frame.indexOf('"usage_id":"');
  if (at === -1) return undefined;
  const start = at + '"usage_id":"'.length;
  return frame.slice(start, frame.indexOf('"', start));
}

function textOf(frame: string): string {
  if (!frame.startsWith("data: {")) return "";
  const data = JSON.parse(frame.slice(6)) as {
    choices?: { text?: string; delta?: { content?: string } }[];
  };
  const choice = data.choices?.[0];
  return choice?.text ?? choice?.delta?.content ?? "";
}
