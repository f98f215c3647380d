import type http from "node:http";
import { FAKE_REPLY } from "../../../../../workers/api/test/support/fake-openai-server.ts";
import {
  type KnownFile,
  numberedCsv,
  paragraphFile,
} from "../../../../../workers/api/test/support/faults-files.ts";
import type { HttpClient } from "../../harness/http.ts";
import { type Mix, operationsOf, pickByMix } from "../../harness/mix.ts";
import type { TextCorpus } from "../../harness/text-corpus.ts";
import { timeStream } from "../completions/stream-timing.ts";
import { Failure } from "./recorder.ts";

/**
 * The load benchmark's operations, each one HTTP request of a real client, and the ledger of
 * every write it attempted (acknowledged or not), which the integrity check reads afterwards.
 */
/** Share of each operation in the mix (percent), in the order reports list them. */
export const MIX = {
  e2_semantic: 14,
  e2_hybrid: 14,
  e3: 10,
  e1: 10,
  e11_upsert: 20,
  e9_upload: 8,
  e4_json: 12,
  e4_stream: 12,
} as const satisfies Mix<string>;
export type Operation = keyof typeof MIX;
export const OPERATIONS = operationsOf(MIX);

export const UPSERT_ROWS = 10;
const TOP_K = 10;

export interface UpsertAttempt {
  documentId: string;
  texts: string[];
  acknowledged: boolean;
}

export interface UploadAttempt {
  documentId: string;
  file: KnownFile;
  acknowledged: boolean;
}

export interface CompletionAttempt {
  user: string;
  endpointId: string;
  mode: "json" | "stream";
  /** the log id the reply carried (acknowledged completions) */
  usageId: string | undefined;
  acknowledged: boolean;
}

export interface Ledger {
  upserts: UpsertAttempt[];
  uploads: UploadAttempt[];
  completions: CompletionAttempt[];
}

export interface LoadTarget {
  http: HttpClient;
  /** keep-alive agent for the streamed completions */
  agent: http.Agent;
  baseUrl: string;
  token: string;
  datasetId: string;
  /** `openai/reply` endpoints: a plain prompt, and one with a search block on the dataset */
  endpoints: { plain: string; search: string };
  corpus: TextCorpus;
  ledger: Ledger;
}

/** Runs operation `op` as client `client`'s `i`-th request. */
export async function runOperation(
  t: LoadTarget,
  op: Operation,
  client: number,
  i: number,
): Promise<void> {
  const token = t.token;
  const dataset = `/api/datasets/${t.datasetId}`;
  const query = t.corpus.query(client * 100_000 + i).text;
  switch (op) {
    case "e2_semantic":
    case "e2_hybrid": {
      const alpha = op === "e2_semantic" ? 1 : 0.5;
      await t.http.post(`${dataset}/search`, { query, top_k: TOP_K, alpha }, { token });
      return;
    }
    case "e3":
      await t.http.post(`${dataset}/search-documents`, { query, top_k: TOP_K }, { token });
      return;
    case "e1":
      await t.http.post(
        `${dataset}/document-filtered-search`,
        { query, top_k_documents: 3, top_k_rows: TOP_K },
        { token },
      );
      return;
    case "e11_upsert": {
      const documentId = `load-upsert-c${client}-${i}`;
      const texts = Array.from(
        { length: UPSERT_ROWS },
        (_, k) => `${documentId} row ${k}: ${t.corpus.text(client * 100_000 + i * 16 + k).text}`,
      );
      const attempt: UpsertAttempt = { documentId, texts, acknowledged: false };
      t.ledger.upserts.push(attempt);
      await t.http.post(
        `${dataset}/rows/upsert`,
        { document_id: documentId, rows: texts.map((text) => ({ data: { text } })) },
        { token },
      );
      attempt.acknowledged = true;
      return;
    }
    case "e9_upload": {
      const documentId = `load-upload-c${client}-${i}`;
      // small files the ingest worker takes in one slice: 3–6 paragraphs, or 5–14 CSV records
      const file =
        i % 2 === 0
          ? paragraphFile(documentId, 2000 + (i % 4) * 700, 1000)
          : numberedCsv(documentId, 5 + (i % 10), 300);
      const attempt: UploadAttempt = { documentId, file, acknowledged: false };
      t.ledger.uploads.push(attempt);
      await upload(t, documentId, file);
      attempt.acknowledged = true;
      return;
    }
    case "e4_json":
    case "e4_stream": {
      const endpointId = i % 2 === 0 ? t.endpoints.plain : t.endpoints.search;
      const user = `load-${op}-c${client}-${i}`;
      const mode = op === "e4_json" ? "json" : "stream";
      const attempt: CompletionAttempt = {
        user,
        endpointId,
        mode,
        usageId: undefined,
        acknowledged: false,
      };
      t.ledger.completions.push(attempt);
      const path = `/api/endpoints/${endpointId}/completions`;
      const body = { values: { q: query }, prompt: [], user };
      if (mode === "json") {
        const reply = await t.http.post<{ choices: { text: string; usage_id: string }[] }>(
          path,
          body,
          { token },
        );
        const choice = reply.body.choices[0];
        if (choice?.text !== FAKE_REPLY)
          throw new Failure("bad_reply", `JSON reply: ${choice?.text}`);
        attempt.usageId = choice.usage_id;
      } else {
        const timing = await timeStream(
          t.agent,
          `${t.baseUrl}${path}`,
          { ...body, stream: true },
          token,
        );
        if (!timing.done) throw new Failure("stream_error", "the stream ended without [DONE]");
        if (timing.text !== FAKE_REPLY) throw new Failure("bad_reply", `stream: ${timing.text}`);
        attempt.usageId = timing.usageId;
      }
      attempt.acknowledged = true;
      return;
    }
  }
}

/**
 * E9 over the load's keep-alive client, like every other operation: it sends a request again
 * when it died on a pooled socket the server had closed (`resendOnStaleSocket`), which `fetch`
 * does not do for a POST.
 */
async function upload(t: LoadTarget, documentId: string, file: KnownFile): Promise<void> {
  const form = new FormData();
  form.append("document_id", documentId);
  for (const [k, v] of Object.entries(file.fields)) form.append(k, v);
  form.append("file", new Blob([file.data], { type: file.type }), file.filename);
  await t.http.postForm(`/api/datasets/${t.datasetId}/upload`, form, { token: t.token });
}

/** Picks an operation by the mix, from a uniform `r` in [0, 1). */
export const pickOperation = (r: number): Operation => pickByMix(MIX, r);
