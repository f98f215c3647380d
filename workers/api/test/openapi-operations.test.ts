import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { call } from "./support/client.ts";

/**
 * `/openapi.json` as client generators see it: every operation has a stable, unique camelCase
 * operationId (generated clients name their methods after it), and the document turns into
 * TypeScript with openapi-typescript that a client can be written against.
 */
const openapi = (await call("/openapi.json")).body as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};
const operations = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    label: `${method.toUpperCase()} ${path}`,
    operationId: op.operationId,
  })),
);

/**
 * Published names: a client generated yesterday calls these. Renaming one breaks it, so a
 * change here is a breaking API change. Operations added later only need a unique camelCase id.
 */
const PUBLISHED: Record<string, string> = {
  "GET /health": "getHealth",
  "POST /admin/projects": "createProject",
  "POST /admin/projects/{id}/keys": "createApiKey",
  "DELETE /admin/keys/{key_id}": "revokeApiKey",
  "POST /api/datasets": "createDataset",
  "GET /api/datasets": "listDatasets",
  "GET /api/datasets/{id}": "getDataset",
  "DELETE /api/datasets/{id}": "deleteDataset",
  "GET /api/datasets/{id}/documents": "listDocuments",
  "POST /api/datasets/{id}/documents": "createDocument",
  "GET /api/datasets/{id}/documents/{document_id}": "getDocument",
  "DELETE /api/datasets/{id}/documents/{document_id}": "deleteDocument",
  "PATCH /api/datasets/{id}/documents/{document_id}": "replaceRows",
  "POST /api/datasets/{id}/rows/upsert": "upsertRows",
  "POST /api/datasets/{id}/documents/{document_id}/rows": "addRows",
  "PATCH /api/datasets/{id}/rows/{row_id}": "updateRow",
  "DELETE /api/datasets/{id}/rows/{row_id}": "deleteRow",
  "GET /api/datasets/{id}/rows": "listRows",
  "POST /api/datasets/{id}/search": "searchRows",
  "POST /api/datasets/{id}/search-documents": "searchDocuments",
  "POST /api/datasets/{id}/document-filtered-search": "documentFilteredSearch",
  "POST /api/datasets/{id}/upload": "uploadFile",
  "POST /api/endpoints": "createEndpoint",
  "GET /api/endpoints": "listEndpoints",
  "GET /api/endpoints/{id}": "getEndpoint",
  "PATCH /api/endpoints/{id}": "updateEndpoint",
  "DELETE /api/endpoints/{id}": "deleteEndpoint",
  "POST /api/endpoints/{id}/completions": "createCompletion",
  "POST /api/endpoints/{id}/chat/completions": "createChatCompletion",
  "GET /endpoints/{id}/logs": "listLogs",
  "PATCH /endpoints/{id}/logs": "rateLogs",
  "POST /endpoints/{id}/logs/{log_id}/comments": "createLogComment",
  "GET /endpoints/{id}/logs/export": "exportLogs",
  "GET /admin/projects": "listProjects",
  "GET /admin/projects/{id}/keys": "listApiKeys",
};

describe("operationId", () => {
  it("is set on every operation, camelCase", () => {
    expect(operations.length).toBeGreaterThanOrEqual(Object.keys(PUBLISHED).length);
    const bad = operations.filter((o) => !/^[a-z][a-zA-Z0-9]*$/.test(o.operationId ?? ""));
    expect(bad).toEqual([]);
  });

  it("is unique", () => {
    const byId = new Map<string, string[]>();
    for (const o of operations)
      byId.set(o.operationId!, [...(byId.get(o.operationId!) ?? []), o.label]);
    expect([...byId.values()].filter((labels) => labels.length > 1)).toEqual([]);
  });

  it("keeps its published names", () => {
    const served = Object.fromEntries(operations.map((o) => [o.label, o.operationId]));
    expect(served).toMatchObject(PUBLISHED);
  });
});

/**
 * Written against the generated types the way a client would be: request bodies and replies
 * by operationId and by path. The `@ts-expect-error` lines prove the types are not `any`.
 */
const USAGE = `
import type { components, operations, paths } from "./openapi";

type JsonBody<Op> = Op extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type JsonReply<Op, Status extends number> = Op extends {
  responses: { [S in Status]: { content: { "application/json": infer R } } };
} ? R : never;

export const search: JsonBody<operations["searchRows"]> = { query: "refund policy", top_k: 5, alpha: 0.5 };
// @ts-expect-error top_k is a number
export const badSearch: JsonBody<operations["searchRows"]> = { query: "q", top_k: "five" };

export function bestConfidence(reply: JsonReply<operations["searchRows"], 200>): number {
  return reply.results.reduce((best, result) => Math.max(best, result.confidence), 0);
}

export const rating: JsonBody<operations["rateLogs"]> = { usage_id: "log_1", positive_rating: true };

export function datasetNames(reply: JsonReply<operations["listDatasets"], 200>): string[] {
  return reply.map((dataset) => dataset.name);
}

export function uploadedId(reply: JsonReply<operations["uploadFile"], 200>): string {
  return reply.document_id;
}

// The path view and the operation view are the same type.
export const samePath: operations["searchRows"] = {} as paths["/api/datasets/{id}/search"]["post"];

export function errorCode(error: components["schemas"]["Error"]): "not_found" | string {
  // @ts-expect-error the code is one of a closed set
  const impossible: typeof error.error.code = "teapot";
  return impossible ?? error.error.code;
}
`;

describe("a client generated from /openapi.json with openapi-typescript", () => {
  it("type-checks, and so does code written against it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "quarry-openapi-client-"));
    try {
      await writeFile(join(dir, "openapi.ts"), astToString(await openapiTS(openapi as never)));
      await writeFile(join(dir, "usage.ts"), USAGE);
      const program = ts.createProgram([join(dir, "usage.ts")], {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ["lib.es2023.d.ts"],
        types: [],
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file
          ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
          : "";
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
      expect(problems).toEqual([]);
      // Both files were compiled: the generated one is not silently missing.
      expect(program.getSourceFile(join(dir, "openapi.ts"))).toBeDefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
