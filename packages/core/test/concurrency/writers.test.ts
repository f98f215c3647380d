import { describe, expect, it } from "vitest";
import type { ProjectContext as Context } from "../../src/index.ts";
import {
  createDataset,
  createDocument,
  deleteDataset,
  deleteDocument,
  deleteRow,
  type IngestMessage,
  indexVectorBacklog,
  isVectorIndexMessage,
  type QueueMessage,
  type RowView,
  registerUpload,
  runIngestSlice,
  updateRow,
  upsertRows,
  writeRowsOfDocument,
} from "../../src/index.ts";
import { checkInvariants } from "../support/invariants.ts";
import { useNativeSuite } from "../support/native-suite.ts";
import { noFiles } from "../support/no-files.ts";
import { createTenant } from "../support/tenant.ts";
import {
  csvUpload,
  type HotRow,
  isNotFound,
  Ledger,
  MemoryFiles,
  type ModelRow,
  pick,
  prng,
  textOf,
  WORKLOAD,
  weighted,
} from "./workload.ts";

/**
 * Many writers on ONE dataset at once, on native PostgreSQL (packages/db/CONCURRENCY.md; PGlite
 * runs one statement at a time and cannot show any of this): every write operation of the domain —
 * E11 replace and create, E12, E13, E8 (text and metadata), E14, document deletion, E5 — plus CSV
 * ingestion slices (with duplicate deliveries running at the same time), vector indexing, and the
 * deletion of a second dataset that has writers of its own. Each actor has its own pool, so their
 * transactions really overlap.
 *
 * Then, exactly: no error but the legitimate ones (a 404 for a row another writer just
 * deleted); every acknowledged write present (each writer's own documents row for row; shared
 * documents equal to one acknowledged replacement; rows several writers append to, update and
 * delete hold only acknowledged texts); every upload `ready` with its exact rows; the deleted
 * dataset gone without a trace; and every maintained structure equal to its recomputation.
 *
 * `QUARRY_CONCURRENCY_WRITERS`, `_SECONDS`, `_UPLOADS`, `_SEED` scale it (see workload.ts).
 */

const SHARED = ["shared-0", "shared-1"];
const HOT = ["hot-0", "hot-1"];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const suite = useNativeSuite();

describe("concurrent writers on one dataset", () => {
  it(
    "complete without deadlocks, keep every acknowledged write, and leave every structure exact",
    async () => {
      const fresh = suite.fresh;
      const { ctx: setupCtx } = await createTenant(fresh.db, "concurrency");
      const projectId = setupCtx.projectId;
      /** an actor's own pool: its transactions overlap with everyone else's */
      const connect = (): Context => {
        const { db } = suite.connect(2);
        return { db, projectId };
      };
      const hybrid = (name: string) =>
        createDataset(
          setupCtx,
          { name, kind: "hybrid", metadata_columns: [{ name: "n", type: "number" }] },
          { embeddingModel: "local/hash" },
        );
      const A = (await hybrid("contended")).id;
      const B = (await hybrid("doomed")).id;
      const ledger = new Ledger();
      const started = Date.now();
      const deadline = started + WORKLOAD.seconds * 1000;
      let stopIndexers = false;

      // Documents every writer replaces (the last acknowledged replacement wins) …
      const sharedAcks = new Map(SHARED.map((d) => [d, new Set<string>()]));
      // … and documents whose rows every writer appends to, updates and deletes.
      const hotRows = new Map<number, HotRow>();
      const hotIds: number[] = [];
      const seedRandom = prng(WORKLOAD.seed);
      for (const doc of HOT) {
        const texts = [0, 1, 2, 3, 4].map((i) => textOf(seedRandom, `${doc}s${i}`));
        const written = await upsertRows(setupCtx, A, {
          document_id: doc,
          rows: texts.map((text) => ({ data: { text } })),
        });
        for (const row of written.rows) {
          hotRows.set(row.id, { texts: new Set([row.data.text!]), deleted: false });
          hotIds.push(row.id);
        }
      }

      // --- writers of dataset A ----------------------------------------------------------
      const models = new Map<number, { own: Map<string, ModelRow[]>; deleted: Set<string> }>();
      async function writer(w: number) {
        const ctx = connect();
        const actor = `writer ${w}`;
        const random = prng(WORKLOAD.seed * 1000 + w);
        const own = new Map<string, ModelRow[]>();
        const deleted = new Set<string>();
        models.set(w, { own, deleted });
        const fixed = [`w${w}-a`, `w${w}-b`, `w${w}-c`];
        let k = 0;
        const texts = (max: number) =>
          Array.from({ length: 1 + Math.floor(random() * max) }, () =>
            textOf(random, `w${w}x${k++}`),
          );
        const input = (list: string[]) =>
          list.map((text) => ({ data: { text }, metadata: { writer: w, n: 0 } }));
        const modelOf = (rows: RowView[], sent: string[]) => {
          if (JSON.stringify(rows.map((r) => r.data.text)) !== JSON.stringify(sent)) {
            throw new Error(`${actor}: the reply's rows are not the rows sent`);
          }
          return rows.map((r) => ({ id: r.id, text: r.data.text!, n: 0 }));
        };
        const ownRow = () => {
          const docs = [...own.entries()].filter(([, rows]) => rows.length > 0);
          if (docs.length === 0) return undefined;
          const [doc, rows] = pick(random, docs);
          return { doc, rows, index: Math.floor(random() * rows.length) };
        };
        while (Date.now() < deadline) {
          const op = weighted(random, {
            "E11 replace": 3,
            "E11 create": 1,
            "E12 replace": 1,
            "E13 append": 2,
            "E8 text": 2,
            "E8 metadata": 1,
            E14: 1,
            "delete document": 0.5,
            E5: 0.5,
            "E11 replace shared": 2,
            "E13 append hot": 1,
            "E8 hot": 1,
            "E14 hot": 0.7,
          });
          if (op === "E11 replace" || (op === "E11 create" && own.size >= 10)) {
            const doc = pick(random, fixed);
            const sent = texts(6);
            const r = await ledger.run(actor, "E11 replace", () =>
              upsertRows(ctx, A, { document_id: doc, rows: input(sent) }),
            );
            if (r.ok) {
              own.set(doc, modelOf(r.value.rows, sent));
              deleted.delete(doc);
            }
          } else if (op === "E11 create") {
            const sent = texts(6);
            const r = await ledger.run(actor, op, () => upsertRows(ctx, A, { rows: input(sent) }));
            if (r.ok) own.set(r.value.document_id, modelOf(r.value.rows, sent));
          } else if (op === "E12 replace" || op === "E13 append" || op === "delete document") {
            if (own.size === 0) continue;
            const doc = pick(random, [...own.keys()]);
            if (op === "delete document") {
              const r = await ledger.run(actor, op, () => deleteDocument(ctx, A, doc, noFiles));
              if (r.ok) {
                own.delete(doc);
                deleted.add(doc);
              }
              continue;
            }
            const sent = texts(op === "E12 replace" ? 6 : 4);
            const mode = op === "E12 replace" ? "replace" : "append";
            const r = await ledger.run(actor, op, () =>
              writeRowsOfDocument(ctx, A, doc, { rows: input(sent) }, mode),
            );
            if (r.ok) {
              const written = modelOf(r.value.rows, sent);
              own.set(doc, mode === "replace" ? written : [...own.get(doc)!, ...written]);
            }
          } else if (op === "E8 text" || op === "E8 metadata" || op === "E14") {
            const target = ownRow();
            if (!target) continue;
            const row = target.rows[target.index]!;
            if (op === "E14") {
              const r = await ledger.run(actor, op, () => deleteRow(ctx, A, String(row.id)));
              if (r.ok) target.rows.splice(target.index, 1);
            } else if (op === "E8 text") {
              const [text] = texts(1);
              const r = await ledger.run(actor, op, () =>
                updateRow(ctx, A, String(row.id), { data: { text: text! } }),
              );
              if (r.ok) row.text = text!;
            } else {
              const n = 1 + Math.floor(random() * 1000);
              const r = await ledger.run(actor, op, () =>
                updateRow(ctx, A, String(row.id), { metadata: { n } }),
              );
              if (r.ok) row.n = n;
            }
          } else if (op === "E5") {
            const doc = `w${w}-e5-${k++}`;
            const content = [texts(1)[0], texts(1)[0], texts(1)[0]].join("\n\n");
            const r = await ledger.run(actor, op, () =>
              createDocument(
                ctx,
                A,
                {
                  id: doc,
                  content,
                  chunk_size: 200,
                  chunk_overlap: 0,
                  metadata: { writer: w, n: 0 },
                },
                {
                  fetchUrl: async () => {
                    throw new Error("no fetching here");
                  },
                  files: noFiles,
                  enqueue: async () => {
                    throw new Error("E5 of a small text must not queue");
                  },
                },
              ),
            );
            // Nobody else writes this document: its rows now are what E5 acknowledged.
            if (r.ok) own.set(doc, await storedRows(A, doc));
          } else if (op === "E11 replace shared") {
            const doc = pick(random, SHARED);
            const sent = texts(5);
            const r = await ledger.run(actor, op, () =>
              upsertRows(ctx, A, {
                document_id: doc,
                rows: sent.map((text) => ({ data: { text } })),
              }),
            );
            if (r.ok) sharedAcks.get(doc)!.add(JSON.stringify(sent));
          } else if (op === "E13 append hot") {
            const sent = texts(3);
            const r = await ledger.run(actor, op, () =>
              writeRowsOfDocument(
                ctx,
                A,
                pick(random, HOT),
                { rows: sent.map((text) => ({ data: { text } })) },
                "append",
              ),
            );
            if (r.ok) {
              for (const row of r.value.rows) {
                hotRows.set(row.id, { texts: new Set([row.data.text!]), deleted: false });
                hotIds.push(row.id);
              }
            }
          } else {
            // E8/E14 on rows every writer touches: a 404 for a row just deleted is right.
            const id = pick(random, hotIds);
            if (op === "E14 hot") {
              const r = await ledger.run(
                actor,
                op,
                () => deleteRow(ctx, A, String(id)),
                isNotFound,
              );
              if (r.ok) hotRows.get(id)!.deleted = true;
            } else {
              const [text] = texts(1);
              const r = await ledger.run(
                actor,
                op,
                () => updateRow(ctx, A, String(id), { data: { text: text! } }),
                isNotFound,
              );
              if (r.ok) hotRows.get(id)!.texts.add(text!);
            }
          }
        }
      }

      // --- dataset B: writers, an indexer, and its deletion half-way ----------------------
      let deletionStarted = false;
      let deletionDone = false;
      let deletionAcknowledged = false;
      async function doomedWriter(w: number) {
        const ctx = connect();
        const actor = `dataset-B writer ${w}`;
        const random = prng(WORKLOAD.seed * 7000 + w);
        const docs = [`b${w}-a`, `b${w}-b`];
        const created = new Set<string>();
        const ids: number[] = [];
        let k = 0;
        // After the deletion began, a 404 (dataset, document or row) is the right answer.
        const legitimate = (e: unknown) => deletionStarted && isNotFound(e);
        while (Date.now() < deadline && !deletionDone) {
          const op = weighted(random, {
            "B: E11 replace": 2,
            "B: E13 append": 2,
            "B: E8": 1,
            "B: E14": 1,
          });
          const rows = () =>
            Array.from({ length: 1 + Math.floor(random() * 4) }, () => ({
              data: { text: textOf(random, `b${w}x${k++}`) },
            }));
          if (op === "B: E11 replace" || ids.length === 0) {
            const doc = pick(random, docs);
            const r = await ledger.run(
              actor,
              "B: E11 replace",
              () => upsertRows(ctx, B, { document_id: doc, rows: rows() }),
              legitimate,
            );
            if (r.ok) {
              created.add(doc);
              ids.push(...r.value.rows.map((row) => row.id));
            }
          } else if (op === "B: E13 append") {
            const r = await ledger.run(
              actor,
              op,
              () =>
                writeRowsOfDocument(ctx, B, pick(random, [...created]), { rows: rows() }, "append"),
              // nobody deletes these documents: only the dataset's deletion can make it a 404
              legitimate,
            );
            if (r.ok) ids.push(...r.value.rows.map((row) => row.id));
          } else if (op === "B: E8") {
            const id = pick(random, ids);
            await ledger.run(
              actor,
              op,
              () =>
                updateRow(ctx, B, String(id), { data: { text: textOf(random, `b${w}x${k++}`) } }),
              (e) => isNotFound(e), // E11 replacements remove this writer's earlier rows
            );
          } else {
            await ledger.run(
              actor,
              op,
              () => deleteRow(ctx, B, String(pick(random, ids))),
              isNotFound,
            );
          }
        }
      }
      async function deleter() {
        const ctx = connect();
        await sleep((WORKLOAD.seconds * 1000) / 2);
        deletionStarted = true;
        const r = await ledger.run("deleter", "delete dataset B", () =>
          deleteDataset(ctx, B, noFiles),
        );
        deletionAcknowledged = r.ok;
        deletionDone = true;
      }

      async function indexer(name: string, datasetId: string, until: () => boolean) {
        const ctx = connect();
        while (!until()) {
          const r = await ledger.run(name, "index vectors", () =>
            indexVectorBacklog(ctx.db, datasetId, 100),
          );
          if (!r.ok || r.value.indexed === 0) await sleep(10);
        }
      }

      // --- ingestion: CSV uploads, slices with duplicate deliveries at the same time -------
      const files = new MemoryFiles();
      const uploads = new Map<string, string[]>();
      const queue: { message: QueueMessage; attempt: number }[] = [];
      const deadLettered: string[] = [];
      let uploading = true;
      let inFlight = 0;
      async function uploader() {
        const ctx = connect();
        const random = prng(WORKLOAD.seed * 3000);
        for (let i = 0; i < WORKLOAD.uploads && Date.now() < deadline; i++) {
          const id = `upload-${i}`;
          // the first is ~1.2 MB: more than one 1 MB slice
          const { bytes, texts } = csvUpload(random, `u${i}`, i === 0 ? 3200 : 120);
          const key = `${A}/${id}/data.csv`;
          files.files.set(key, bytes);
          const r = await ledger.run("uploader", "E9 register", () =>
            registerUpload(
              ctx,
              A,
              { documentId: id, chunkSize: 1000, chunkOverlap: 100, metadata: {} },
              { key, filename: "data.csv", contentType: "text/csv" },
              {
                enqueue: async (message: IngestMessage) => {
                  queue.push({ message, attempt: 1 });
                },
              },
            ),
          );
          if (r.ok) uploads.set(id, texts);
          await sleep((WORKLOAD.seconds * 1000) / (WORKLOAD.uploads + 1));
        }
        uploading = false;
      }
      async function consumer(c: number, until: number) {
        const ctx = connect();
        const random = prng(WORKLOAD.seed * 5000 + c);
        while (Date.now() < until) {
          const delivery = queue.shift();
          if (!delivery) {
            if (!uploading && inFlight === 0) return;
            await sleep(20);
            continue;
          }
          inFlight++;
          try {
            const { message, attempt } = delivery;
            // a duplicate delivery, processed by the other consumer at the same time
            if (random() < 0.25) queue.unshift({ message, attempt });
            if (isVectorIndexMessage(message)) {
              await ledger.run(`consumer ${c}`, "index vectors (queue)", () =>
                indexVectorBacklog(ctx.db, message.datasetId, 500),
              );
              continue;
            }
            const r = await ledger.run(`consumer ${c}`, "ingest slice", () =>
              runIngestSlice(ctx, message, {
                source: files,
                enqueue: async (next) => {
                  queue.push({ message: next, attempt: 1 });
                },
              }),
            );
            if (!r.ok) {
              // the Queue redelivers a failed message, up to 5 times, then dead-letters it
              if (attempt < 5) queue.push({ message, attempt: attempt + 1 });
              else deadLettered.push(message.documentId);
            }
          } finally {
            inFlight--;
          }
        }
      }

      // --- run ----------------------------------------------------------------------------
      const drainUntil = deadline + 120_000;
      const consumers = [consumer(1, drainUntil), consumer(2, drainUntil)];
      await Promise.all([
        ...Array.from({ length: WORKLOAD.writers }, (_, w) => writer(w)),
        doomedWriter(1),
        doomedWriter(2),
        deleter(),
        uploader(),
        indexer("indexer 1", A, () => stopIndexers),
        indexer("indexer 2", A, () => stopIndexers),
        indexer("indexer B", B, () => deletionDone || stopIndexers),
        (async () => {
          await sleep(WORKLOAD.seconds * 1000);
          await Promise.all(consumers);
          stopIndexers = true;
        })(),
      ]);
      const elapsed = (Date.now() - started) / 1000;

      // --- check --------------------------------------------------------------------------
      const problems: string[] = ledger.summary().map((line) => `unexpected error: ${line}`);
      const sample = ledger.unexpected.slice(0, 5).map((e) => `${e.actor} ${e.op}: ${e.message}`);
      for (const id of deadLettered)
        problems.push(`upload ${id}: a slice failed 5 times (dead-lettered)`);
      if (queue.length > 0)
        problems.push(`ingestion did not finish: ${queue.length} messages left`);

      for (const [w, { own, deleted }] of models) {
        for (const [doc, expected] of own) {
          const stored = await storedRows(A, doc);
          if (JSON.stringify(stored) !== JSON.stringify(expected)) {
            problems.push(
              `writer ${w} document ${doc}: rows ${JSON.stringify(stored.map((r) => [r.id, r.n]))} ` +
                `differ from the acknowledged ${JSON.stringify(expected.map((r) => [r.id, r.n]))}` +
                ` (texts equal: ${JSON.stringify(stored.map((r) => r.text)) === JSON.stringify(expected.map((r) => r.text))})`,
            );
          }
        }
        for (const doc of deleted) {
          if (own.has(doc)) continue;
          const [left] = await fresh.sql<{ documents: number; rows: number }>(
            `SELECT (SELECT count(*) FROM documents WHERE dataset_id = $1 AND id = $2)::int AS documents,
                    (SELECT count(*) FROM rows WHERE dataset_id = $1 AND document_id = $2)::int AS rows`,
            [A, doc],
          );
          if (left!.documents + left!.rows > 0) {
            problems.push(
              `writer ${w} document ${doc}: deleted (acknowledged) but ${JSON.stringify(left)} remain`,
            );
          }
        }
      }
      for (const [doc, acks] of sharedAcks) {
        if (acks.size === 0) continue;
        const texts = JSON.stringify((await storedRows(A, doc)).map((r) => r.text));
        if (!acks.has(texts)) {
          problems.push(
            `shared document ${doc}: its rows ${texts} are none of the ${acks.size} acknowledged replacements`,
          );
        }
      }
      const hotStored = new Map<number, string>();
      for (const doc of HOT) {
        for (const row of await storedRows(A, doc)) hotStored.set(row.id, row.text);
      }
      for (const [id, text] of hotStored) {
        const acked = hotRows.get(id);
        if (!acked) problems.push(`hot row ${id}: never acknowledged, yet stored`);
        else if (acked.deleted) problems.push(`hot row ${id}: deleted (acknowledged), yet stored`);
        else if (!acked.texts.has(text))
          problems.push(`hot row ${id}: text "${text}" was never acknowledged`);
      }
      for (const [id, acked] of hotRows) {
        if (!acked.deleted && !hotStored.has(id))
          problems.push(`hot row ${id}: acknowledged, not deleted, but gone`);
      }
      for (const [id, texts] of uploads) {
        const [doc] = await fresh.sql<{
          status: string;
          error: string | null;
          rows: number | null;
        }>(
          "SELECT status, error, (progress->>'rows')::int AS rows FROM documents WHERE dataset_id = $1 AND id = $2",
          [A, id],
        );
        const stored = await storedRows(A, id);
        if (doc?.status !== "ready" || doc.rows !== texts.length) {
          problems.push(
            `upload ${id}: ${JSON.stringify(doc)}, expected ready with ${texts.length} rows`,
          );
        }
        const storedTexts = stored.map((r) => r.text);
        if (JSON.stringify(storedTexts) !== JSON.stringify(texts)) {
          const firstDifference = texts.findIndex((t, i) => storedTexts[i] !== t);
          problems.push(
            `upload ${id}: ${stored.length} rows stored for ${texts.length} records (first difference at ${firstDifference})`,
          );
        }
      }
      const [leftOfB] = await fresh.sql<Record<string, number>>(
        `SELECT (SELECT count(*) FROM datasets WHERE id = $1)::int AS datasets,
                (SELECT count(*) FROM documents WHERE dataset_id = $1)::int AS documents,
                (SELECT count(*) FROM rows WHERE dataset_id = $1)::int AS rows,
                (SELECT count(*) FROM pg_class
                 WHERE relname IN (quarry_vector_partition_name($1), quarry_vector_graph_name($1, 0)))::int AS graph`,
        [B],
      );
      if (deletionAcknowledged && Object.values(leftOfB!).some((n) => n > 0)) {
        problems.push(`dataset B: deleted (acknowledged) but ${JSON.stringify(leftOfB)} remain`);
      }
      const drift = await checkInvariants(fresh, { examples: 3 });
      problems.push(...drift.map((line) => `drift: ${line}`));

      const totals = ledger.total();
      const writes = [...ledger.ops]
        .filter(([op]) => !op.startsWith("index"))
        .reduce((sum, [, c]) => sum + c.ok + c.legitimate, 0);
      console.log(
        JSON.stringify(
          {
            writers: WORKLOAD.writers,
            seconds: WORKLOAD.seconds,
            elapsed,
            operations: totals,
            writesPerSecond: Math.round((writes / WORKLOAD.seconds) * 10) / 10,
            byOperation: Object.fromEntries(ledger.ops),
            unexpectedErrors: ledger.summary(),
            sampleErrors: sample,
            drift,
            problems: problems.length,
          },
          null,
          2,
        ),
      );
      expect(problems).toEqual([]);
    },
    (WORKLOAD.seconds + 300) * 1000,
  );
});

/** A document's rows as stored, in id order (what the acknowledged model is compared with). */
async function storedRows(datasetId: string, documentId: string): Promise<ModelRow[]> {
  const found = await suite.fresh.sql<{ id: string | number; text: string; n: number | null }>(
    `SELECT id, data->>'text' AS text, (metadata->>'n')::int AS n FROM rows
     WHERE dataset_id = $1 AND document_id = $2 ORDER BY id`,
    [datasetId, documentId],
  );
  return found.map((r) => ({ id: Number(r.id), text: r.text, n: r.n ?? 0 }));
}
