import { beforeAll, describe, expect, it } from "vitest";
import {
  type FormPart,
  jsonText,
  listOperations,
  multipart,
  type OpenApiDocument,
  type Operation,
} from "./support/bad-input-cases.ts";
import { baseUrl } from "./support/client.ts";
import { changedTables, type Fingerprint, fingerprint } from "./support/database-fingerprint.ts";
import { pathValue, validBodies } from "./support/operation-fixtures.ts";
import { envelopeProblems, type RawRequest, sendAndJudge } from "./support/raw-request.ts";
import { type SeededTenant, seedTenant } from "./support/seeded-tenant.ts";

/**
 * Issue 7.2: a second project's key tries every project operation of /openapi.json on the first
 * project's datasets, documents, rows (real ids and guessed neighbours), endpoints and logs. The
 * contract (docs/api.md#authentication): a dataset or endpoint of another project is a 401; inside
 * the caller's own dataset or endpoint, another project's document, row or log id is unknown: a
 * 404. A body that names another project's dataset or log is refused. Nothing of the first project
 * is read, listed, searched, changed or deleted: replies to the second project never carry the
 * first one's ids or texts, and the first project's stored data is byte-for-byte the same
 * afterwards. The admin API is not project-scoped and is left out.
 */

const CONCURRENCY = 4;
const doc = (await (await fetch(`${baseUrl()}/openapi.json`)).json()) as OpenApiDocument;
const operations = listOperations(doc).filter((op) => op.security === "apiKey");
const stamp = Date.now().toString(36);

let owner: SeededTenant;
let intruder: SeededTenant;
let before: Fingerprint;

beforeAll(async () => {
  [owner, intruder] = await Promise.all([
    seedTenant("iso-owner", `ownersecret${stamp}`),
    seedTenant("iso-intruder", `intrudersecret${stamp}`),
  ]);
  before = await fingerprint([owner.projectId]);
}, 120_000);

type Expectation = 401 | 404 | "refused" | "own data";

interface Probe {
  operation: string;
  label: string;
  request: RawRequest;
  expect: Expectation;
}

/** The intruder's request: its key, the path filled by `value`, the operation's body. */
function intruderRequest(
  op: Operation,
  value: (param: string) => string,
  body: unknown,
): RawRequest {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(value(name)),
  );
  const headers: Record<string, string> = { authorization: `Bearer ${intruder.key}` };
  if (op.body?.mediaType === "json") {
    headers["content-type"] = "application/json";
    return { method: op.method, path, headers, body: jsonText(body) };
  }
  if (op.body?.mediaType === "multipart") {
    headers["content-type"] = "multipart/form-data; boundary=----isolation";
    return {
      method: op.method,
      path,
      headers,
      body: multipart(body as FormPart[], "----isolation"),
    };
  }
  // Listings: the largest page, so that nothing hides on a later one.
  const page = op.queryParams.some((p) => p.name === "page_size") ? "?page_size=1000" : "";
  return { method: op.method, path: `${path}${page}`, headers };
}

/** Row ids are numbers from one sequence: the owner's, their neighbours and the next ones. */
function guessedRowIds(): string[] {
  const mine = new Set(intruder.rowIds);
  const guesses = new Set<number>();
  for (const id of owner.rowIds) for (let d = -2; d <= 2; d++) guesses.add(id + d);
  const top = Math.max(...owner.rowIds);
  guesses
    .add(top + 1)
    .add(top + 2)
    .add(1);
  return [...guesses].filter((id) => id > 0 && !mine.has(id)).map(String);
}

/** The owner's ids for a child path parameter (every document, every log, guessed rows). */
function ownerChildIds(op: Operation, param: string): string[] {
  switch (param) {
    case "document_id":
      return Object.values(owner.documentIds);
    case "row_id":
      return guessedRowIds();
    case "log_id":
      return owner.logIds;
    default:
      return [pathValue(owner, op, param)];
  }
}

/**
 * The intruder's own valid body, turned against the owner: every id of the intruder in it
 * becomes the owner's (a search block's dataset, a rated log), a document id becomes the
 * owner's, and the search text is the owner's secret.
 */
function bodyAimedAtOwner(op: Operation): unknown {
  const body = validBodies(intruder, stamp)[op.key]?.();
  const swap = new Map<string, string>([
    [intruder.datasetId, owner.datasetId],
    [intruder.endpointId, owner.endpointId],
    ...intruder.logIds.map((id, i) => [id, owner.logIds[i] ?? id] as [string, string]),
  ]);
  if (Array.isArray(body)) {
    return (body as FormPart[]).map((part) =>
      part.name === "document_id" ? { ...part, value: owner.documentIds.rows } : part,
    );
  }
  const aimed = (value: unknown, key?: string): unknown => {
    if (typeof value === "string") {
      if (key === "document_id" || (key === "id" && op.key.endsWith("/documents"))) {
        return owner.documentIds.rows;
      }
      if (key === "query" || key === "question") return owner.marker;
      return swap.get(value) ?? value;
    }
    if (Array.isArray(value)) return value.map((v) => aimed(v));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, aimed(v, k)]));
    }
    return value;
  };
  return aimed(body);
}

/** Every probe for one operation; throws when a path parameter has no fixture value. */
function probesFor(op: Operation): { refused: Probe[]; own: Probe[] } {
  const params = op.pathParams.map((p) => p.name);
  const children = params.filter((p) => p !== "id");
  const ownBody = validBodies(intruder, stamp)[op.key]?.();
  const refused: Probe[] = [];
  const add = (label: string, value: (p: string) => string, expect: Expectation) =>
    refused.push({
      operation: op.key,
      label,
      request: intruderRequest(op, value, ownBody),
      expect,
    });

  if (params.length > 0) {
    add("all of the owner's ids", (p) => pathValue(owner, op, p), 401);
  }
  if (params.includes("id") && children.length > 0) {
    add(
      "the owner's container, the intruder's own child ids",
      (p) => (p === "id" ? pathValue(owner, op, p) : pathValue(intruder, op, p)),
      401,
    );
  }
  for (const child of children) {
    for (const id of ownerChildIds(op, child)) {
      add(
        `the intruder's container, the owner's ${child} ${id}`,
        (p) => (p === child ? id : pathValue(intruder, op, p)),
        404,
      );
    }
  }

  const own: Probe[] = [];
  if (op.method !== "DELETE") {
    const body = bodyAimedAtOwner(op);
    const text = body === undefined ? "" : JSON.stringify(body);
    const namesOwner = [owner.datasetId, owner.endpointId, ...owner.logIds].some((id) =>
      text.includes(id),
    );
    own.push({
      operation: op.key,
      label: namesOwner
        ? "the intruder's own ids, a body naming the owner's objects"
        : "the intruder's own ids, looking for the owner's data",
      request: intruderRequest(op, (p) => pathValue(intruder, op, p), body),
      expect: namesOwner ? "refused" : "own data",
    });
  }
  // Filters that name the owner's rows and documents select nothing of the owner's.
  const byOwnerIds = {
    $or: [
      { rowId: { $in: owner.rowIds } },
      { documentId: { $in: Object.values(owner.documentIds) } },
    ],
  };
  if (op.queryParams.some((p) => p.name === "filter")) {
    const request = intruderRequest(op, (p) => pathValue(intruder, op, p), undefined);
    own.push({
      operation: op.key,
      label: "a filter on the owner's row and document ids",
      request: {
        ...request,
        path: `${request.path}${request.path.includes("?") ? "&" : "?"}filter=${encodeURIComponent(JSON.stringify(byOwnerIds))}`,
      },
      expect: "own data",
    });
  }
  if (typeof ownBody === "object" && ownBody !== null && Object.hasOwn(ownBody, "filter")) {
    own.push({
      operation: op.key,
      label: "a search filtered on the owner's row and document ids",
      request: intruderRequest(op, (p) => pathValue(intruder, op, p), {
        ...(bodyAimedAtOwner(op) as object),
        filter: byOwnerIds,
      }),
      expect: "own data",
    });
  }
  return { refused, own };
}

/** What of the owner must never reach the intruder: its ids and the texts it stored. */
function leaks(text: string): string[] {
  const m = owner.marker;
  const needles = [
    owner.projectId,
    owner.keyId,
    owner.spareKeyId,
    owner.datasetId,
    owner.endpointId,
    ...owner.logIds,
    `for ${m}`, // rows, endpoint prompt
    `about ${m}`, // inline and uploaded documents
    `on ${m}`, // comment
  ];
  return needles.filter((n) => text.includes(n));
}

function run(probes: Probe[]): Promise<string[]> {
  return sendAndJudge(probes, CONCURRENCY, (p, reply) => {
    const ok = reply.status >= 200 && reply.status < 300;
    if (ok) {
      const leaked = leaks(reply.text);
      if (leaked.length > 0) return `${reply.status} leaks ${leaked.join(", ")}`;
      if (p.expect === "own data") return null;
      return `accepted (${reply.status}), expected ${p.expect}: ${reply.text.slice(0, 200)}`;
    }
    const wrong = envelopeProblems(reply);
    if (typeof p.expect === "number" && reply.status !== p.expect) {
      wrong.unshift(`status ${reply.status}, expected ${p.expect}`);
    }
    return wrong.length === 0 ? null : `${wrong.join("; ")} — ${reply.text.slice(0, 200)}`;
  });
}

describe("another project's key", () => {
  it("has probes for every project operation, and for every path parameter", () => {
    const uncovered: string[] = [];
    for (const op of operations) {
      try {
        const { refused, own } = probesFor(op);
        if (op.pathParams.length > 0 && refused.length === 0) uncovered.push(op.key);
        if (refused.length + own.length === 0) uncovered.push(op.key);
      } catch (error) {
        uncovered.push(`${op.key}: ${(error as Error).message}`);
      }
    }
    expect(uncovered).toEqual([]);
    expect(operations.length).toBeGreaterThanOrEqual(25);
    expect(guessedRowIds().length).toBeGreaterThan(owner.rowIds.length);
  });

  // Everything that names the owner's records is refused before anything is written.
  it.each(operations.map((op) => [op.key, op] as const))(
    "%s: the owner's ids in the path → 401 (dataset, endpoint) or 404 (document, row, log)",
    async (_key, op) => {
      expect(await run(probesFor(op).refused)).toEqual([]);
    },
  );

  it.each(operations.filter((op) => op.method !== "DELETE").map((op) => [op.key, op] as const))(
    "%s: on its own records, it never reaches or reveals the owner's",
    async (_key, op) => {
      expect(await run(probesFor(op).own)).toEqual([]);
    },
  );

  it("left the owner's stored data byte-for-byte unchanged", async () => {
    const after = await fingerprint([owner.projectId]);
    expect(changedTables(before, after)).toEqual([]);
    expect(after).toEqual(before);
  });
});
