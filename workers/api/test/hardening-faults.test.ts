import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_REPLY } from "./support/fake-openai-server.ts";
import { type KnownFile, numberedCsv, paragraphFile } from "./support/faults-files.ts";
import {
  envelopeProblems,
  type FaultStack,
  type Reply,
  type StreamReply,
  startFaultStack,
} from "./support/faults-stack.ts";

/**
 * Fault injection (issue 7): a stack of its own whose ingest worker fails at random points
 * (INGEST_FAULT_RATE), whose database connections are cut mid-request (the loopback pg
 * server's fault hook), and whose model provider fails or breaks its streams (the loopback
 * OpenAI-compatible server). Nothing may be lost, duplicated or half-written, every failure
 * is an error envelope or a terminating SSE error event, and nothing hangs.
 * Ingest and model faults run side by side; connection cuts run alone afterwards (they would
 * hit the other scenarios' connections too).
 */
// Nine deliveries in ten fail at a random point (before the writes, after them before the
// commit, between slices, before the ack); a message's third delivery is never struck.
const INGEST_FAULT_RATE = 0.9;
const SETTLE_MS = 60_000;
// The production default. The embedded database runs one statement at a time, so a request
// may wait behind an ingest slice's transaction; on a loaded two-core CI machine that wait
// once exceeded an 8 s deadline and a GET failed with a 500. 30 s covers it, and scenario d
// still sees a silent database fail its requests well inside the test's deadlines.
const DATABASE_TIMEOUT_SECONDS = 30;
/** a reply may wait DATABASE_TIMEOUT_SECONDS for the database, and then some */
const REPLY_MS = (DATABASE_TIMEOUT_SECONDS + 30) * 1000;
const INGEST_TEST_MS = SETTLE_MS + 2 * REPLY_MS;

let fx: FaultStack;
beforeAll(async () => {
  fx = await startFaultStack({
    ingestFaultRate: INGEST_FAULT_RATE,
    databaseTimeoutSeconds: DATABASE_TIMEOUT_SECONDS,
  });
});
afterAll(async () => {
  await fx?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createDataset(token: string, name: string): Promise<string> {
  const reply = await fx.call("/api/datasets", {
    method: "POST",
    token,
    body: { name, kind: "standard" },
  });
  if (reply.status !== 201) throw new Error(`create dataset: ${reply.text}`);
  return reply.body.id;
}

/** GET of a document, waiting as long as a reply may take (REPLY_MS). */
function getDocument(token: string, datasetId: string, id: string) {
  return fx.call(`/api/datasets/${datasetId}/documents/${id}`, { token, timeoutMs: REPLY_MS });
}

/** Embedded texts of a document's rows, in insertion order, straight from the database. */
async function storedTexts(datasetId: string, documentId: string): Promise<string[]> {
  const rows = await fx.sql<{ text: string }>(
    "SELECT data->>'text' AS text FROM rows WHERE dataset_id = $1 AND document_id = $2 ORDER BY id",
    [datasetId, documentId],
  );
  return rows.map((r) => r.text);
}

describe.concurrent("ingest worker and model provider faults", () => {
  it(
    "a. ingest faults: every upload ends ready with exactly its rows, each once",
    async () => {
      const token = await fx.tenant("faults-ingest");
      const datasetId = await createDataset(token, "faulty-ingest");
      const files: KnownFile[] = [
        paragraphFile("long-text", 1_200_000, 5000), // 2 slices of 1 MB
        numberedCsv("long-csv", 90, 25_000), // 2 slices of 2 MB
        paragraphFile("short-text-1", 6_000, 1000),
        paragraphFile("short-text-2", 9_000, 1000),
        numberedCsv("short-csv-1", 12, 300),
        numberedCsv("short-csv-2", 7, 800),
      ];
      const ids = await Promise.all(
        files.map(async (file) => {
          const form = new FormData();
          for (const [k, v] of Object.entries(file.fields)) form.append(k, v);
          form.append("file", new Blob([file.data], { type: file.type }), file.filename);
          const res = await fetch(`${fx.stack.baseUrl}/api/datasets/${datasetId}/upload`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}` },
            body: form,
            signal: AbortSignal.timeout(30_000),
          });
          const text = await res.text();
          expect(res.status, text).toBe(200);
          return (JSON.parse(text) as { document_id: string }).document_id;
        }),
      );

      // Bounded wait: faults strike a message's first two deliveries at most (retried after 2
      // and 4 s), so every document must end `ready`, in seconds.
      const deadline = Date.now() + SETTLE_MS;
      const settled = new Map<
        string,
        { status: string; row_count: number; error: string | null }
      >();
      while (settled.size < ids.length && Date.now() < deadline) {
        for (const id of ids) {
          if (settled.has(id)) continue;
          const doc = await getDocument(token, datasetId, id);
          if (doc.status !== 200) expect.fail(await fx.explain(doc));
          if (doc.body.status === "ready" || doc.body.status === "failed")
            settled.set(id, doc.body);
        }
        await sleep(250);
      }
      // Every document is checked, settled or not, so a failure names everything that is wrong.
      const outcomes = [];
      const problems: string[] = [];
      for (const [i, file] of files.entries()) {
        const id = ids[i] as string;
        const name = file.filename;
        const doc = settled.get(id) ?? (await getDocument(token, datasetId, id)).body;
        const stored = await storedTexts(datasetId, id);
        const duplicates = stored.length - new Set(stored).size;
        outcomes.push({ file: name, status: doc.status, rows: stored.length, duplicates });
        if (!settled.has(id)) problems.push(`${name}: still ${doc.status} after ${SETTLE_MS} ms`);
        if (doc.status === "failed") problems.push(`${name}: failed: ${doc.error}`);
        if (duplicates > 0) problems.push(`${name}: ${duplicates} rows stored twice`);
        if (doc.row_count !== stored.length) {
          problems.push(`${name}: row_count ${doc.row_count}, ${stored.length} rows stored`);
        }
        if (doc.status === "ready" && !sameList(stored, file.rows)) {
          // exactly the file's rows, each once, in file order
          problems.push(`${name}: ready with ${stored.length} rows, expected ${file.rows.length}`);
        }
        if (doc.status !== "ready" && !isSubsequence(stored, file.rows)) {
          // a document that is not ready holds the parts of slices it stored: rows of the file,
          // each once, in file order (a slice's row ids are reserved before its parts run)
          problems.push(`${name}: ${doc.status} with rows that are not the file's, in order`);
        }
      }
      const struck = countBy(
        [...(await fx.wranglerLog()).matchAll(/"msg":"injected fault","point":"(\w+)"/g)].map(
          (m) => m[1] as string,
        ),
      );
      console.log(`ingest faults struck ${JSON.stringify(struck)}: ${JSON.stringify(outcomes)}`);
      expect(problems).toEqual([]);
      expect(outcomes.filter((o) => o.status === "ready").length).toBeGreaterThan(0);
      // redeliveries of committed slices happened: what the slice commit's guard is there for
      expect((struck.ack ?? 0) + (struck.enqueue ?? 0), "no fault after a commit").toBeGreaterThan(
        0,
      );
    },
    INGEST_TEST_MS,
  );

  it("c. model faults: every completion gets an envelope or a terminating event, and is logged", async () => {
    const token = await fx.tenant("faults-models");
    // model → what the caller must get (JSON / stream) and the log status
    const cases: Record<string, { json: number; stream: "ok" | "envelope" | "cut"; log: number }> =
      {
        "openai/reply": { json: 200, stream: "ok", log: 200 },
        "openai/fail:500": { json: 502, stream: "envelope", log: 502 },
        "openai/fail:429": { json: 502, stream: "envelope", log: 502 },
        "openai/fail:400": { json: 502, stream: "envelope", log: 502 },
        // the cut and stall scenarios only break streams; a JSON call gets its whole reply
        "openai/cut:0": { json: 200, stream: "envelope", log: 502 },
        "openai/cut:3": { json: 200, stream: "cut", log: 502 },
        "openai/stall:2": { json: 200, stream: "cut", log: 502 },
      };
    const endpoints = new Map<string, string>();
    for (const model of Object.keys(cases)) {
      const created = await fx.call("/api/endpoints", {
        method: "POST",
        token,
        body: { name: model, model, prompt: "Q: {{q}}" },
      });
      expect(created.status, created.text).toBe(201);
      endpoints.set(model, created.body.id);
    }

    interface Attempt {
      model: string;
      mode: "json" | "stream";
      user: string;
      reply: Reply | StreamReply;
      /** what the log must say */
      logStatus: number;
      /** the text the caller received before a stream broke */
      partial?: string;
    }
    const runs: Promise<Attempt>[] = [];
    for (const [model, expected] of Object.entries(cases)) {
      const path = `/api/endpoints/${endpoints.get(model)}/completions`;
      for (let i = 0; i < 2; i++) {
        const jsonUser = `json-${model}-${i}`;
        runs.push(
          fx
            .call(path, {
              method: "POST",
              token,
              body: { values: { q: "why" }, prompt: [], user: jsonUser },
              timeoutMs: 45_000,
            })
            .then((reply) => {
              expect(reply.status, `${model} JSON: ${reply.text}`).toBe(expected.json);
              if (reply.status !== 200) {
                expect(envelopeProblems(reply)).toEqual([]);
                expect(reply.body.error.code).toBe("upstream_error");
              } else expect(reply.body.choices[0].text).toBe(FAKE_REPLY);
              const logStatus = expected.json === 200 ? 200 : expected.log;
              return { model, mode: "json" as const, user: jsonUser, reply, logStatus };
            }),
        );
        const streamUser = `stream-${model}-${i}`;
        runs.push(
          fx
            .stream(path, { values: { q: "why" }, prompt: [], user: streamUser }, token)
            .then((reply) => {
              const label = `${model} stream: ${reply.text.slice(0, 300)}`;
              if (expected.stream === "envelope") {
                expect(reply.status, label).toBe(502);
                expect(envelopeProblems(reply as unknown as Reply)).toEqual([]);
                return { model, mode: "stream" as const, user: streamUser, reply, logStatus: 502 };
              }
              expect(reply.status, label).toBe(200);
              const last = reply.frames.at(-1);
              const chunks = reply.frames.filter((f) => f.startsWith('{"id"'));
              const text = chunks.map((f) => JSON.parse(f).choices[0].text ?? "").join("");
              if (expected.stream === "ok") {
                expect(last, label).toBe("[DONE]");
                expect(text).toBe(FAKE_REPLY);
                return { model, mode: "stream" as const, user: streamUser, reply, logStatus: 200 };
              }
              // a stream that broke after its 200: one terminating error event, no [DONE]
              expect(reply.frames, label).not.toContain("[DONE]");
              const error = JSON.parse(last ?? "{}").error;
              expect(error, label).toMatchObject({
                code: "upstream_error",
                request_id: reply.headers.get("x-request-id"),
              });
              expect(FAKE_REPLY.startsWith(text) && text.length > 0, label).toBe(true);
              return {
                model,
                mode: "stream" as const,
                user: streamUser,
                reply,
                logStatus: 502,
                partial: text,
              };
            }),
        );
      }
    }
    const attempts = await Promise.all(runs);

    // every attempt reached the model and has exactly one log, with the status it came to
    const logs = new Map<string, Record<string, any>[]>();
    for (const id of endpoints.values()) {
      const listed = await fx.call(`/endpoints/${id}/logs?page=1&page_size=100`, { token });
      expect(listed.status, listed.text).toBe(200);
      for (const log of listed.body as Record<string, any>[]) {
        logs.set(log.user_id, [...(logs.get(log.user_id) ?? []), log]);
      }
    }
    for (const attempt of attempts) {
      const label = `${attempt.model} ${attempt.mode}`;
      const reached = fx.openai.requests.filter((r) => r.body.user === attempt.user);
      expect(reached.length, `${label}: reached the model`).toBeGreaterThan(0);
      const mine = logs.get(attempt.user) ?? [];
      expect(mine.length, `${label}: logs`).toBe(1);
      const status = JSON.parse(mine[0]?.status);
      expect(status.status, `${label}: logged status`).toBe(attempt.logStatus);
      if (attempt.logStatus !== 200) expect(status.error, label).toBeTruthy();
      if (attempt.partial !== undefined) expect(mine[0]?.completion).toBe(attempt.partial);
    }
    expect(logs.size).toBe(attempts.length);
  }, 100_000);
});

describe("b. database connections drop mid-request", () => {
  it(
    "acknowledged upserts exist exactly once, the rest whole or not at all; 5xx envelopes; recovery",
    async () => {
      const token = await fx.tenant("faults-db");
      const datasetId = await createDataset(token, "faulty-db");
      const texts = (doc: string, version: number) =>
        Array.from({ length: 3 + (version % 3) }, (_, k) => `${doc} version ${version} row ${k}`);
      const upsert = (doc: string, version: number, timeoutMs?: number) =>
        fx.call(`/api/datasets/${datasetId}/rows/upsert`, {
          method: "POST",
          token,
          body: { document_id: doc, rows: texts(doc, version).map((text) => ({ data: { text } })) },
          ...(timeoutMs ? { timeoutMs } : {}),
        });

      interface Attempt {
        doc: string;
        version: number;
        reply: Reply;
      }
      const attempts: Attempt[] = [];
      let running = true;
      const WRITERS = 6;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const docs: string[] = [];
        const versions = new Map<string, number>();
        for (let i = 0; running; i++) {
          // a third of the writes replace an earlier document's rows (one transaction)
          const replace = docs.length > 0 && i % 3 === 2;
          const doc = replace ? (docs[i % docs.length] as string) : `w${w}-doc${i}`;
          if (!replace) docs.push(doc);
          const version = (versions.get(doc) ?? 0) + 1;
          versions.set(doc, version);
          attempts.push({ doc, version, reply: await upsert(doc, version) });
        }
      });
      // The fault: connections cut at random moments, and cut after their K-th message (mid
      // transaction, between statements, or right after COMMIT), for 10 s.
      const faults = fx.stack.pg.faults;
      const droppedBefore = faults.dropped;
      const started = Date.now();
      let round = 0;
      while (Date.now() - started < 10_000) {
        await sleep(50 + ((round * 37) % 200));
        if (round++ % 2 === 0) faults.dropAll();
        else faults.dropAfter({ connections: 2, afterMessages: 2 + ((round * 5) % 14) });
      }
      faults.reset();
      running = false;
      await Promise.all(writers); // a HangError (20 s without a reply) fails the test here
      const dropped = faults.dropped - droppedBefore;

      const acknowledged = attempts.filter((a) => a.reply.status >= 200 && a.reply.status < 300);
      const failed = attempts.filter((a) => a.reply.status >= 300);
      console.log(
        `connection cuts: ${dropped} connections cut, ${attempts.length} upserts, ${acknowledged.length} acknowledged, statuses ${JSON.stringify(countBy(failed.map((a) => a.reply.status)))}`,
      );
      expect(dropped).toBeGreaterThan(0);
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(
        failed.length,
        "no upsert was hit: the faults did not reach a request",
      ).toBeGreaterThan(0);
      for (const a of failed) {
        expect(a.reply.status, a.reply.text).toBeGreaterThanOrEqual(500);
        expect(envelopeProblems(a.reply), a.reply.text).toEqual([]);
      }

      // Per document: its rows are exactly one whole version, never a mix, never a duplicate;
      // that version is the last acknowledged one or a later attempt whose reply was lost.
      const byDoc = new Map<string, Attempt[]>();
      for (const a of attempts) byDoc.set(a.doc, [...(byDoc.get(a.doc) ?? []), a]);
      const rows = await fx.sql<{ document_id: string; text: string }>(
        "SELECT document_id, data->>'text' AS text FROM rows WHERE dataset_id = $1 ORDER BY id",
        [datasetId],
      );
      const stored = new Map<string, string[]>();
      for (const r of rows)
        stored.set(r.document_id, [...(stored.get(r.document_id) ?? []), r.text]);
      const documents = new Set(
        (
          await fx.sql<{ id: string }>("SELECT id FROM documents WHERE dataset_id = $1", [
            datasetId,
          ])
        ).map((d) => d.id),
      );
      for (const [doc, tries] of byDoc) {
        const have = stored.get(doc) ?? [];
        const lastAck = tries.filter((t) => t.reply.status < 300).at(-1)?.version ?? 0;
        const allowed = tries.filter((t) => t.version >= lastAck).map((t) => texts(doc, t.version));
        if (lastAck === 0) allowed.push([]);
        expect(allowed, `${doc}: stored ${JSON.stringify(have)}`).toContainEqual(have);
        expect(documents.has(doc), `${doc}: document row without its rows, or the reverse`).toBe(
          have.length > 0,
        );
      }
      expect([...stored.keys()].filter((doc) => !byDoc.has(doc))).toEqual([]);
      // Informational: writes that committed although their reply was an error (the cut came
      // after COMMIT ran) — allowed, as with any database whose connection drops at that moment.
      const committedUnacknowledged = failed.filter((a) => {
        const last = byDoc.get(a.doc)?.at(-1);
        return last === a && sameList(stored.get(a.doc) ?? [], texts(a.doc, a.version));
      }).length;
      console.log(
        `connection cuts: ${committedUnacknowledged} failed replies whose write committed`,
      );

      // Recovery: with the faults off, the next requests succeed. Each may wait as long as the
      // workers wait for the database (REPLY_MS), so a database that stays stuck after the cuts
      // shows as their 500 and what they logged for it, not only as a client-side deadline.
      for (let i = 0; i < 5; i++) {
        const reply = await upsert(`after-${i}`, 1, REPLY_MS);
        expect(reply.status, await fx.explain(reply)).toBe(200);
        expect(await storedTexts(datasetId, `after-${i}`)).toEqual(texts(`after-${i}`, 1));
      }
      const search = await fx.call(`/api/datasets/${datasetId}/search`, {
        method: "POST",
        token,
        body: { query: "version row", top_k: 3 },
      });
      expect(search.status, search.text).toBe(200);
      expect((await fx.call("/health")).status).toBe(200);
    },
    60_000 + REPLY_MS,
  );
});

describe("d. the database stops answering", () => {
  it(
    "requests fail with a 500 envelope after DATABASE_TIMEOUT_SECONDS instead of hanging, write nothing, and the service recovers",
    async () => {
      const token = await fx.tenant("faults-silent");
      const datasetId = await createDataset(token, "silent-db");
      const requests = () => [
        fx.call(`/api/datasets/${datasetId}`, { token, timeoutMs: REPLY_MS }),
        fx.call(`/api/datasets/${datasetId}/rows/upsert`, {
          method: "POST",
          token,
          body: { document_id: "silent", rows: [{ data: { text: "never stored" } }] },
          timeoutMs: REPLY_MS,
        }),
      ];
      const faults = fx.stack.pg.faults;
      const silencedBefore = faults.silenced;
      // Every connection opened while the two requests run answers its startup, then nothing
      // more: the requests' first queries wait on an open socket that never replies. (Not just
      // the next two: the ingest worker may open its own meanwhile, indexing the vectors of
      // earlier scenarios' writes, and would take one of them.)
      faults.silenceAfter({ connections: 1_000, afterMessages: 1 });
      const silent = await Promise.all(requests()); // a HangError fails the test here
      faults.reset();
      expect(faults.silenced - silencedBefore).toBeGreaterThanOrEqual(2);
      for (const reply of silent) {
        expect(reply.status, reply.text).toBe(500);
        expect(envelopeProblems(reply), reply.text).toEqual([]);
      }
      expect(await storedTexts(datasetId, "silent")).toEqual([]);

      const [get, upsert] = await Promise.all(requests());
      expect(get?.status, get?.text).toBe(200);
      expect(upsert?.status, upsert?.text).toBe(200);
      expect(await storedTexts(datasetId, "silent")).toEqual(["never stored"]);
    },
    3 * REPLY_MS,
  );
});

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Whether `a` is `b` with some items left out (order kept). */
function isSubsequence(a: string[], b: string[]): boolean {
  let j = 0;
  for (const x of a) {
    while (j < b.length && b[j] !== x) j++;
    if (j === b.length) return false;
    j++;
  }
  return true;
}

function countBy(values: (number | string)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
