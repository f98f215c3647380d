import { baseUrl, type Reply } from "./client.ts";
import { pollUntil } from "./poll.ts";
import { withinReplyDeadline } from "./reply-deadline.ts";

/**
 * Multipart uploads (E11, docs/api.md) with fetch's own encoder, and the wait for the ingest
 * worker (Queue consumer) that follows one.
 */

/** A form with `fields` first, then one `file` part. */
export function fileForm(
  filename: string,
  type: string,
  data: Uint8Array | string,
  fields: Record<string, string> = {},
): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("file", new Blob([data], { type }), filename);
  return form;
}

/** POSTs `form` to `path`; parses a JSON reply and keeps the raw text, as `call` does. */
export async function postForm(path: string, form: FormData, token: string | null): Promise<Reply> {
  return withinReplyDeadline(`POST ${path}`, async (signal) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method: "POST",
      headers: token ? { authorization: `Bearer ${token}` } : {},
      body: form,
      signal,
    });
    const text = await res.text();
    const json = res.headers.get("content-type")?.includes("json") && text;
    return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : text, text };
  });
}

/** Polls a document until the ingest worker has finished it (`ready` or `failed`), for 60 s. */
export async function settledDocument(datasetId: string, id: string, token: string) {
  const doc = await pollUntil(
    `/api/datasets/${datasetId}/documents/${id}`,
    token,
    (reply) => reply.body.status === "ready" || reply.body.status === "failed",
    (reply) => `still ${reply.body.status}: ${reply.text}`,
  );
  return doc.body;
}
