import { beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/client.ts";
import { pollUntil } from "./support/poll.ts";
import { postDataset, upsertRows } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";
import { nativeTestServerUrl } from "./support/test-stack.ts";
import { fileForm, postForm, settledDocument } from "./support/upload.ts";

/**
 * Document slices and vector indexing travel on queues of their own (wrangler.toml:
 * "quarry-ingest", "quarry-index"): a queue hands its consumer one batch at a time, and one
 * `index-vectors` message may build a dataset's graph for minutes. On one queue, every upload
 * sent meanwhile stayed `queued` until the build ended. Native PostgreSQL only: the embedded
 * database never builds a graph in bulk (it grows graphs row by row on its one session).
 */
const BULK_ROWS = 10_000; // the ingest worker's VECTOR_GRAPH_BULK_MIN_ROWS default

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant("queues-apart");
});

async function graphOf(datasetId: string) {
  const reply = await call(`/api/datasets/${datasetId}`, { token: tenant.key });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.vector_index as { graph: string; rebuilding: boolean; pending_rows: number };
}

describe.skipIf(!nativeTestServerUrl())("slices and vector indexing on queues apart", () => {
  it("ingests an upload to ready while another dataset's graph is being built", async () => {
    const building = (await postDataset(tenant.key, { name: "bulk" })).body.id as string;
    const uploads = (await postDataset(tenant.key, { name: "uploads" })).body.id as string;
    for (let first = 0; first < BULK_ROWS; first += 1000) {
      const written = await upsertRows(tenant.key, building, {
        document_id: `part-${first}`,
        rows: Array.from({ length: 1000 }, (_, i) => ({
          data: { text: `Harbour log ${first + i}: tide ${(first + i) % 97}, wind ${i % 13}` },
        })),
      });
      expect(written.status, written.text).toBe(200);
    }
    // The writes ask for indexing; a backlog this large gets the graph rebuilt in one pass,
    // beside the one serving searches.
    await pollUntil(
      `/api/datasets/${building}`,
      tenant.key,
      (reply) => reply.body.vector_index.rebuilding === true,
      (reply) => `no graph build started: ${reply.text}`,
    );

    const form = fileForm("note.txt", "text/plain", "The lighthouse keeper logged a calm night.");
    const sent = await postForm(`/api/datasets/${uploads}/upload`, form, tenant.key);
    expect(sent.status, sent.text).toBe(200);
    const document = await settledDocument(uploads, sent.body.document_id, tenant.key);
    expect(document).toMatchObject({ status: "ready", row_count: 1 });
    // Ready before the build ended: its slice did not wait behind the build's message.
    expect(await graphOf(building)).toMatchObject({ graph: "valid", rebuilding: true });

    // The stack is left quiet for the files after this one.
    await pollUntil(
      `/api/datasets/${building}`,
      tenant.key,
      (reply) =>
        reply.body.vector_index.graph === "valid" &&
        !reply.body.vector_index.rebuilding &&
        reply.body.vector_index.pending_rows === 0,
      (reply) => `the graph was not built: ${reply.text}`,
    );
  }, 240_000);
});
