import { admin, baseUrl, call } from "./client.ts";
import { pollUntil } from "./poll.ts";
import { createTenant, type Tenant } from "./tenant.ts";
import { settledDocument } from "./upload.ts";

/**
 * A tenant with one of everything, so that every route with path parameters reaches its
 * handler: a hybrid dataset with an inline document, a document of rows and an uploaded
 * (ingested) file, an endpoint that searches it, two logs (one rated, one commented) and a
 * spare API key. `marker` is in every text the tenant stores, so a reply that leaks it is
 * easy to spot.
 */
export interface SeededTenant extends Tenant {
  marker: string;
  datasetId: string;
  documentIds: { inline: string; rows: string; upload: string };
  rowIds: number[];
  endpointId: string;
  logIds: string[];
  /** a key of this project that is not used for requests (its revocation can be tried) */
  spareKeyId: string;
}

export async function seedTenant(name: string, marker: string): Promise<SeededTenant> {
  const tenant = await createTenant(name);
  // Document ids are per dataset; the tenant's name keeps two tenants' ids apart.
  const docs = { inline: `${name}-inline`, rows: `${name}-rows`, upload: `${name}-upload` };
  const as = { token: tenant.key };
  const expectOk = (what: string, reply: { status: number; text: string }) => {
    if (reply.status >= 300) throw new Error(`seed ${what}: ${reply.status} ${reply.text}`);
  };

  const spare = await admin(`/admin/projects/${tenant.projectId}/keys`, {
    method: "POST",
    body: { name: "spare" },
  });
  expectOk("spare key", spare);

  const dataset = await call("/api/datasets", {
    method: "POST",
    body: {
      name: `${name} data`,
      kind: "hybrid",
      metadata_columns: [
        { name: "year", type: "number" },
        { name: "tags", type: "string[]" },
      ],
    },
    ...as,
  });
  expectOk("dataset", dataset);
  const datasetId = dataset.body.id as string;

  const inline = await call(`/api/datasets/${datasetId}/documents`, {
    method: "POST",
    body: {
      id: docs.inline,
      filename: "inline.txt",
      content: `An inline note about ${marker} and the northern lights.\n\nA second paragraph on tides.`,
      chunk_size: 200,
      chunk_overlap: 20,
      metadata: { year: 2020 },
    },
    ...as,
  });
  expectOk("inline document", inline);

  const rows = await call(`/api/datasets/${datasetId}/rows/upsert`, {
    method: "POST",
    body: {
      document_id: docs.rows,
      rows: ["aurora", "comet", "eclipse"].map((topic, i) => ({
        data: { text: `Row about ${topic} for ${marker}` },
        metadata: { year: 2019 + i, tags: [topic, marker] },
      })),
    },
    ...as,
  });
  expectOk("rows", rows);

  const form = new FormData();
  form.append("document_id", docs.upload);
  form.append(
    "file",
    new Blob([`An uploaded file about ${marker}.\n\nIt mentions telescopes.`], {
      type: "text/plain",
    }),
    "upload.txt",
  );
  const uploaded = await fetch(`${baseUrl()}/api/datasets/${datasetId}/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.key}` },
    body: form,
  });
  expectOk("upload", { status: uploaded.status, text: await uploaded.text() });
  await settled(datasetId, docs.upload, tenant.key);
  await indexed(datasetId, tenant.key);

  const endpoint = await call("/api/endpoints", {
    method: "POST",
    body: {
      name: `${name} endpoint`,
      model: "local/echo",
      prompt: `Context for ${marker}: {{context}}\nQ: {{question}}`,
      search: [{ dataset_id: datasetId, variable: "context", query: "{{question}}", top_k: 2 }],
    },
    ...as,
  });
  expectOk("endpoint", endpoint);
  const endpointId = endpoint.body.id as string;

  const logIds: string[] = [];
  for (const question of ["northern lights", "tides"]) {
    const reply = await call(`/api/endpoints/${endpointId}/completions`, {
      method: "POST",
      body: { values: { question: `${question} ${marker}` }, prompt: [] },
      ...as,
    });
    expectOk("completion", reply);
    logIds.push(reply.body.choices[0].usage_id);
  }
  expectOk(
    "rating",
    await call(`/endpoints/${endpointId}/logs`, {
      method: "PATCH",
      body: { usage_id: logIds[0], positive_rating: true },
      ...as,
    }),
  );
  expectOk(
    "comment",
    await call(`/endpoints/${endpointId}/logs/${logIds[1]}/comments`, {
      method: "POST",
      body: { comment: `A comment on ${marker}` },
      ...as,
    }),
  );

  const listed = await call(`/api/datasets/${datasetId}/rows?page_size=1000`, as);
  expectOk("row listing", listed);
  return {
    ...tenant,
    marker,
    datasetId,
    documentIds: docs,
    rowIds: (listed.body as { id: number }[]).map((r) => r.id),
    endpointId,
    logIds,
    spareKeyId: spare.body.id,
  };
}

/**
 * Waits for the ingest worker's vector indexer to have taken the dataset's rows into its
 * graph (and folded their keyword deltas, which it does first): until then a delayed
 * `index-vectors` message may still change the stored data after the seed returns, and a
 * test comparing the data before and after (hardening-bad-input) would see the indexer's
 * work as its own.
 */
async function indexed(datasetId: string, key: string): Promise<void> {
  await pollUntil(
    `/api/datasets/${datasetId}`,
    key,
    ({ body }) =>
      body?.vector_index?.pending_rows === 0 &&
      body.vector_index.graph === "valid" &&
      !body.vector_index.rebuilding,
    (reply) => `seed indexing: ${reply.text}`,
  );
}

/** Waits for the ingest worker to finish an uploaded document. */
async function settled(datasetId: string, documentId: string, key: string): Promise<void> {
  const doc = await settledDocument(datasetId, documentId, key);
  if (doc?.status !== "ready") throw new Error(`seed upload: ${JSON.stringify(doc)}`);
}
