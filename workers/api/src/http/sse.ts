import type { Context } from "hono";
import { errorEvent } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";

/**
 * Stream headers (docs/api.md#completion-streams): no caching, and no buffering by proxies
 * (nginx honours the last).
 */
export const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no",
} as const;

/**
 * A Server-Sent-Events response: each string of `events` becomes one `data:` event, encoded
 * and handed on as soon as it is produced (one event per pull, no queue). A failure of the
 * source ends the stream with one last event carrying the error envelope. When the client
 * goes away, the source is cancelled, which is how the producer learns of it.
 */
export function sseResponse(c: Context<HonoEnv>, events: ReadableStream<string>): Response {
  const encoder = new TextEncoder();
  const reader = events.getReader();
  const frame = (data: string) => encoder.encode(`data: ${data}\n\n`);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(frame(value));
        } catch (error) {
          controller.enqueue(frame(errorEvent(c, error)));
          controller.close();
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
