import { beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_BODY_BYTES } from "../src/middleware/body-limit.ts";
import {
  type BadInputCase,
  type CaseContext,
  type FormPart,
  generateCases,
  listOperations,
  multipart,
  type OpenApiDocument,
  type Operation,
  Schemas,
} from "./support/bad-input-cases.ts";
import { adminToken, baseUrl } from "./support/client.ts";
import {
  changedTables,
  type Fingerprint,
  fingerprint,
  withSql,
} from "./support/database-fingerprint.ts";
import { pathValue, validBodies } from "./support/operation-fixtures.ts";
import { envelopeProblems, sendAndJudge, sendRaw } from "./support/raw-request.ts";
import { type SeededTenant, seedTenant } from "./support/seeded-tenant.ts";

/**
 * Issue 7.1: every operation of /openapi.json gets hostile input (support/bad-input-cases.ts)
 * and answers it with a 4xx in the error envelope (docs/api.md#errors): never a 5xx, never a hang.
 *
 * Phase 1 sends every case that must be refused, with the ids of a tenant that has real
 * datasets, documents, rows, an endpoint and logs, so that the cases reach the handlers; the
 * tenant's stored data must be byte-for-byte the same afterwards. Phase 2 sends the cases
 * that may be accepted (a NUL inside a string, an unknown field on a lenient body, …) to a
 * throwaway tenant, since an accepted one may write; there, too, a refusal is a 4xx envelope.
 */

const CONCURRENCY = 4;
const doc = (await (await fetch(`${baseUrl()}/openapi.json`)).json()) as OpenApiDocument;
const operations = listOperations(doc);
const schemas = new Schemas(doc);
const marker = `badinput${Date.now().toString(36)}`;

let owner: SeededTenant;
let scratch: SeededTenant;
let before: Fingerprint;

beforeAll(async () => {
  [owner, scratch] = await Promise.all([
    seedTenant("bad-input", marker),
    seedTenant("bad-input-scratch", `${marker}scratch`),
  ]);
  before = await fingerprint([owner.projectId]);
}, 120_000);

function contextFor(t: SeededTenant): CaseContext {
  const bodies = validBodies(t, marker);
  return {
    doc,
    authorization: (op) =>
      op.security === "adminToken"
        ? `Bearer ${adminToken()}`
        : op.security === "apiKey"
          ? `Bearer ${t.key}`
          : null,
    pathValue: (op, param) => pathValue(t, op, param),
    validBody: (op) => {
      const body = bodies[op.key];
      if (body) return body();
      if (op.body?.mediaType === "json") return schemas.sample(op.body.schema);
      throw new Error(`${op.key}: no valid body to start from`);
    },
    maxJsonBodyBytes: MAX_JSON_BODY_BYTES,
  };
}

/** Sends the cases (a few at a time) and returns what went wrong, one line per case. */
function run(cases: BadInputCase[]): Promise<string[]> {
  return sendAndJudge(cases, CONCURRENCY, (c, reply) => {
    if (reply.status >= 200 && reply.status < 300) {
      return c.acceptable2xx ? null : `accepted (${reply.status}) ${reply.text.slice(0, 200)}`;
    }
    const wrong = envelopeProblems(reply);
    return wrong.length === 0
      ? null
      : `${wrong.join("; ")} — ${reply.status} ${reply.text.slice(0, 300)}`;
  });
}

const byOperation = operations.map((op) => [op.key, op] as const);

describe("the generator", () => {
  it("covers every operation of the document, E1–E15 and the admin API included", () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
    expect(operations.filter((o) => o.security === "adminToken").length).toBeGreaterThanOrEqual(3);
  });

  it("starts from valid bodies: each conforms to its operation's schema", () => {
    const ctx = contextFor(owner);
    for (const op of operations) {
      if (op.body?.mediaType !== "json") continue;
      expect(schemas.conforms(op.body.schema, ctx.validBody(op)), op.key).toBe(true);
    }
  });
});

describe("phase 1: every request that breaks the contract is refused, and nothing is stored", () => {
  let sent = 0;
  it.each(byOperation)(
    "%s",
    async (_key, op) => {
      const cases = generateCases(contextFor(owner), op).filter((c) => !c.acceptable2xx);
      expect(cases.length).toBeGreaterThan(0);
      sent += cases.length;
      expect(await run(cases)).toEqual([]);
    },
    180_000,
  );

  it("left the tenant's stored data byte-for-byte unchanged", async () => {
    expect(sent).toBeGreaterThan(0);
    const after = await fingerprint([owner.projectId]);
    expect(changedTables(before, after)).toEqual([]);
    expect(after).toEqual(before);
    // POST /admin/projects writes outside the tenant: no project with the marker exists.
    const created = await withSql((sql) =>
      sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM projects WHERE strpos(name, $1) > 0",
        [marker],
      ),
    );
    expect(created[0]?.n).toBe(0);
  });
});

describe("phase 2: requests within the contract are answered without a 5xx (throwaway tenant)", () => {
  // Deletions last, children before parents, so the other cases still find their records.
  const ordered = [...byOperation].sort(([, a], [, b]) => {
    const rank = (o: Operation) => (o.method === "DELETE" ? 1 : 0);
    return rank(a) - rank(b) || (rank(a) === 1 ? b.path.length - a.path.length : 0);
  });

  it("the unmutated requests succeed, so the mutations reach the handlers", async () => {
    const ctx = contextFor(scratch);
    const failures: string[] = [];
    for (const op of operations) {
      if (op.method === "DELETE") continue;
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        encodeURIComponent(ctx.pathValue(op, name)),
      );
      const headers: Record<string, string> = {};
      const auth = ctx.authorization(op);
      if (auth) headers.authorization = auth;
      let body: string | Uint8Array | undefined;
      if (op.body?.mediaType === "json") {
        body = JSON.stringify(ctx.validBody(op));
        headers["content-type"] = "application/json";
      } else if (op.body?.mediaType === "multipart") {
        body = multipart(ctx.validBody(op) as FormPart[], "----valid");
        headers["content-type"] = "multipart/form-data; boundary=----valid";
      }
      const reply = await sendRaw({ method: op.method, path, headers, ...(body ? { body } : {}) });
      if (reply.status >= 300)
        failures.push(`${op.key}: ${reply.status} ${reply.text.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  }, 180_000);

  it.each(ordered)(
    "%s",
    async (_key, op) => {
      const cases = generateCases(contextFor(scratch), op).filter((c) => c.acceptable2xx);
      expect(await run(cases)).toEqual([]);
    },
    180_000,
  );
});
