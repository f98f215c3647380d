import type { FormPart, Operation } from "./bad-input-cases.ts";
import type { SeededTenant } from "./seeded-tenant.ts";

/**
 * Valid requests for the operations of /openapi.json, built on a seeded tenant's real ids:
 * the starting point of the bad-input cases (hardening-bad-input.test.ts) and the requests
 * another project's key tries (hardening-isolation.test.ts).
 */

const row = (text: string) => ({
  data: { text: `${text} about the northern lights` },
  metadata: { year: 2021, tags: ["aurora"] },
});

/** A valid body per operation; an operation missing here gets a sample of its schema. */
export function validBodies(t: SeededTenant, marker: string): Record<string, () => unknown> {
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}`;
  const search = () => [
    {
      dataset_id: t.datasetId,
      variable: "context",
      query: "{{question}}",
      top_k: 2,
      filter: { year: { $gte: 2000 } },
      alpha: 0.5,
    },
  ];
  return {
    "POST /admin/projects": () => ({ name: `${marker} project` }),
    "POST /admin/projects/{id}/keys": () => ({ name: "bad-input", email: "bad@example.com" }),
    "POST /api/datasets": () => ({
      name: "bad-input dataset",
      kind: "hybrid",
      columns: [{ name: "text", type: "text", embed: true }],
      metadata_columns: [{ name: "year", type: "number" }],
      embedding_model: "local/hash",
      dimensions: 384,
    }),
    "POST /api/datasets/{id}/documents": () => ({
      id: unique("doc-new"),
      filename: "new.txt",
      url: "https://example.com/new.txt",
      content: "A new document about comets.",
      parse_url: false,
      chunk_size: 500,
      chunk_overlap: 50,
      metadata: { year: 2021, tags: ["comet"] },
    }),
    "PATCH /api/datasets/{id}/documents/{document_id}": () => ({ rows: [row("Replaced")] }),
    "POST /api/datasets/{id}/rows/upsert": () => ({
      document_id: unique("doc-upsert"),
      rows: [row("Upserted")],
    }),
    "POST /api/datasets/{id}/documents/{document_id}/rows": () => ({ rows: [row("Added")] }),
    "PATCH /api/datasets/{id}/rows/{row_id}": () => ({
      data: { text: "Updated text" },
      metadata: { year: 2022, tags: ["updated"] },
    }),
    "POST /api/datasets/{id}/search": () => ({
      query: "northern lights",
      top_k: 3,
      filter: { year: { $gte: 2000 }, tags: "aurora" },
      alpha: 0.5,
    }),
    "POST /api/datasets/{id}/search-documents": () => ({ query: "northern lights", top_k: 3 }),
    "POST /api/datasets/{id}/document-filtered-search": () => ({
      query: "northern lights",
      top_k_documents: 2,
      top_k_rows: 3,
    }),
    "POST /api/datasets/{id}/upload": (): FormPart[] => [
      { name: "document_id", value: unique("doc-file") },
      { name: "chunk_size", value: "500" },
      { name: "chunk_overlap", value: "50" },
      { name: "metadata", value: '{"year":2023}' },
      {
        name: "file",
        filename: "notes.txt",
        contentType: "text/plain",
        value: "Uploaded notes about auroras.",
      },
    ],
    "POST /api/endpoints": () => ({
      name: "bad-input endpoint",
      model: "local/echo",
      prompt: "Context: {{context}} Q: {{question}}",
      temperature: 0.2,
      max_tokens: 100,
      search: search(),
    }),
    // The update sends chat messages, so the messages schema is walked too.
    "PATCH /api/endpoints/{id}": () => ({
      name: "renamed",
      model: "local/echo",
      messages: [
        { role: "system", content: "Context: {{context}}" },
        { role: "user", content: "{{question}}" },
      ],
      temperature: 0.5,
      max_tokens: 50,
      search: search(),
    }),
    "POST /api/endpoints/{id}/completions": () => ({
      values: { question: "tides" },
      prompt: ["and briefly"],
      stream: false,
      user: "bad-input-user",
    }),
    "POST /api/endpoints/{id}/chat/completions": () => ({
      values: { question: "tides" },
      messages: [{ role: "user", content: [{ type: "text", text: "and briefly" }] }],
      stream: false,
      user: "bad-input-user",
    }),
    "PATCH /endpoints/{id}/logs": () => ({ usage_id: t.logIds[0], positive_rating: false }),
    "POST /endpoints/{id}/logs/{log_id}/comments": () => ({
      comment: "A comment",
      name: "Reviewer",
      email: "reviewer@example.com",
    }),
  };
}

/** Real ids of the tenant; an unknown parameter fails the suite (a new route needs one). */
export function pathValue(t: SeededTenant, op: Operation, param: string): string {
  switch (param) {
    case "id":
      if (op.path.startsWith("/admin/projects/")) return t.projectId;
      if (op.path.startsWith("/api/datasets/")) return t.datasetId;
      if (/^(\/api)?\/endpoints\//.test(op.path)) return t.endpointId;
      break;
    case "document_id":
      // the file download needs a document that has a stored file
      return op.path.endsWith("/file") ? t.documentIds.upload : t.documentIds.rows;
    case "row_id":
      return String(t.rowIds[0]);
    case "log_id":
      return t.logIds[0]!;
    case "key_id":
      return t.spareKeyId;
  }
  throw new Error(`${op.key}: no fixture value for path parameter '${param}'`);
}
