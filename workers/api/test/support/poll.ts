import { call, type Reply } from "./client.ts";

/**
 * GETs `path` every 100 ms until `done` accepts the reply, for 60 s; then throws with
 * `failure`'s message. The waits on the ingest worker (a document, a vector index) use it.
 */
export async function pollUntil(
  path: string,
  token: string,
  done: (reply: Reply) => boolean,
  failure: (reply: Reply) => string,
): Promise<Reply> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const reply = await call(path, { token });
    if (done(reply)) return reply;
    if (Date.now() > deadline) throw new Error(failure(reply));
    await new Promise((r) => setTimeout(r, 100));
  }
}
