import { authorizationFor } from "./client.ts";
import { apiErrorOf } from "./errors.ts";
import type { components } from "./schema";

export type UploadReply = components["schemas"]["UploadReply"];

/**
 * E9 upload with progress: fetch() cannot report upload progress, XMLHttpRequest's upload
 * events can. The reply is the same JSON (or error envelope) the typed client would see.
 */
export function uploadFile(
  datasetId: string,
  file: File,
  onProgress: (sent: number, total: number) => void,
  signal?: AbortSignal,
): Promise<UploadReply> {
  const url = `/api/datasets/${encodeURIComponent(datasetId)}/upload`;
  const form = new FormData();
  form.append("file", file, file.name);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", url);
    const authorization = authorizationFor(url);
    if (authorization) request.setRequestHeader("Authorization", authorization);
    request.responseType = "json";
    request.upload.onprogress = (event) => onProgress(event.loaded, event.total || file.size);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) resolve(request.response as UploadReply);
      else
        reject(
          apiErrorOf(request.status, request.response, request.getResponseHeader("x-request-id")),
        );
    };
    request.onerror = () => reject(new TypeError("the upload was interrupted"));
    request.onabort = () => reject(new DOMException("upload cancelled", "AbortError"));
    signal?.addEventListener("abort", () => request.abort());
    request.send(form);
  });
}
