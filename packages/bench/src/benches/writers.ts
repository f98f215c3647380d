import type { QuarryApi } from "../harness/api.ts";
import { type Bench, scaled } from "../harness/bench.ts";
import { startBenchTenant } from "../harness/bench-tenant.ts";
import { runConcurrent } from "../harness/concurrency.ts";
import type { HttpClient } from "../harness/http.ts";
import { hashSeed, seededRandom } from "../harness/random.ts";
import { fmt } from "../harness/report.ts";
import { perSecond, round, startTimer } from "../harness/stats.ts";
import { positiveIntegerEnv, TargetConfigError } from "../harness/target.ts";
import { createTextCorpus, type TextCorpus } from "../harness/text-corpus.ts";
import { withDeadline } from "./load/recorder.ts";
import { checkPhase } from "./writers/integrity.ts";
import {
  MIX,
  type MixTarget,
  newSharedLedger,
  newWriter,
  pickOperation,
  resolveOperation,
  runOperation,
  SIZES,
  type Writer,
} from "./writers/mix.ts";
import { Outcomes } from "./writers/outcomes.ts";

/**
 * `pnpm bench writers` (issue 14, first "Done when"): WRITERS (8) writers for WRITERS_SECONDS
 * (60 × BENCH_SCALE, at least 5) through the API, each picking its next write from a fixed mix
 * (writers/mix.ts): E11 replacing a few shared documents every writer replaces, E11 creating
 * documents of its own, E13 appending to them, E8/E14 on rows it has seen acknowledged, E5 from
 * inline content.
 *
 * Phase A runs all writers on ONE dataset (hybrid, `local/hash`); phase B runs the same mix,
 * writers and duration with each writer on a dataset of its own. After each phase the bench
 * waits for the ingest worker to index the vector backlog (`vector_index.pending_rows` = 0),
 * then checks through the database that every maintained structure equals its recomputation
 * from `rows` and that every acknowledged write is present (writers/integrity.ts).
 *
 * Targets: `ratio` = phase A's successful ops/s ÷ phase B's ≥ 0.7, no 5xx, no other failures,
 * invariants exact. 404s of E8/E14 on a row another writer removed first, and 409s for a
 * document being ingested, are legitimate answers: counted apart, neither ops nor failures.
 */
const WRITERS = 8;
const SECONDS = 60;
const MODEL = "local/hash";
const REQUEST_DEADLINE_MS = 60_000;
const TARGET_RATIO = 0.7;

export const writersBench: Bench = {
  name: "writers",
  summary:
    "8 writers × 60 s of E11/E13/E8/E14/E5 on one dataset vs one dataset each: ops/s ratio, 5xx, invariants",
  async run({ target, http: client, scale, progress }) {
    const writers = positiveIntegerEnv("WRITERS", WRITERS);
    const seconds = positiveIntegerEnv("WRITERS_SECONDS", scaled(SECONDS, scale, { min: 5 }));
    const drainTimeoutMs = Math.max(60_000, seconds * 2000);
    const databaseUrl = target.databaseUrl;
    if (!databaseUrl) {
      throw new TargetConfigError(
        "writers checks integrity through the database: with BASE, set DATABASE_URL too",
      );
    }
    const params = {
      writers,
      seconds,
      mix_percent: MIX,
      sizes: SIZES,
      dataset: { kind: "hybrid", embedding_model: MODEL },
      phases: {
        a: "every writer on one dataset (shared documents: every writer replaces them)",
        b: "each writer on a dataset of its own (its shared documents are its alone)",
      },
      ops: "successful (2xx) requests; 404/409 legitimate answers are counted apart (answered = both)",
      ratio:
        "phase A ops/s ÷ phase B ops/s (rows_ratio, answered_ratio: the same for rows/s, answered/s)",
      rows_written:
        "rows stored by E11/E13/E5 (their replies) plus rows updated by E8; E14 writes none",
      request_deadline_ms: REQUEST_DEADLINE_MS,
      drain_timeout_ms: drainTimeoutMs,
      stack: target.mode,
    };
    const tenant = await startBenchTenant({ http: client, target, progress }, "writers", params);
    const { api } = tenant;
    const corpus = createTextCorpus({ seed: 14, chars: SIZES.row_chars });
    const context: PhaseContext = {
      api,
      http: client,
      token: tenant.apiKey,
      corpus,
      writers,
      seconds,
      drainTimeoutMs,
      databaseUrl,
      progress,
    };

    const a = await runPhase(context, "a", 1);
    const b = await runPhase(context, "b", writers);
    const ratio = b.ops_per_s > 0 ? round(a.ops_per_s / b.ops_per_s, 3) : 0;
    const rowsRatio = b.rows_per_s > 0 ? round(a.rows_per_s / b.rows_per_s, 3) : 0;
    const answeredRatio = b.answered_per_s > 0 ? round(a.answered_per_s / b.answered_per_s, 3) : 0;
    const status5xx = a.status_5xx + b.status_5xx;
    const failed = a.failed + b.failed;
    const exact = a.integrity.invariants_exact && b.integrity.invariants_exact;
    progress(
      `ratio ${ratio} (A ${a.ops_per_s} ops/s ÷ B ${b.ops_per_s} ops/s), rows ratio ${rowsRatio}, answered ratio ${answeredRatio}, 5xx ${status5xx}, invariants ${exact ? "exact" : "NOT exact"}`,
    );
    return {
      params,
      results: {
        one_dataset: a,
        spread: b,
        ratio,
        rows_ratio: rowsRatio,
        answered_ratio: answeredRatio,
        status_5xx: status5xx,
        invariants_exact: exact,
        targets: {
          ratio: met(`>= ${TARGET_RATIO}`, ratio, ratio >= TARGET_RATIO),
          no_5xx: met("0", status5xx, status5xx === 0),
          no_failures: met("0", failed, failed === 0),
          invariants_exact: met("true", exact, exact),
        },
      },
    };
  },
};

interface PhaseContext {
  api: QuarryApi;
  http: HttpClient;
  token: string;
  corpus: TextCorpus;
  writers: number;
  seconds: number;
  drainTimeoutMs: number;
  databaseUrl: string;
  progress: (line: string) => void;
}

async function runPhase(c: PhaseContext, phase: "a" | "b", datasetCount: number) {
  const label = phase.toUpperCase();
  const datasetIds: string[] = [];
  for (let i = 0; i < datasetCount; i++) {
    const dataset = await c.api.createDataset({
      name: `writers-${phase}-${i}`,
      kind: "hybrid",
      embedding_model: MODEL,
    });
    datasetIds.push(dataset.id);
  }
  const sharedDocuments = Array.from({ length: SIZES.shared_documents }, (_, i) => `shared-${i}`);
  const shared = newSharedLedger();
  const t: MixTarget = {
    http: c.http,
    token: c.token,
    corpus: c.corpus,
    shared,
    clock: startTimer(),
  };
  const writers: Writer[] = Array.from({ length: c.writers }, (_, w) =>
    newWriter(
      w,
      datasetIds[w % datasetCount] as string,
      sharedDocuments,
      seededRandom(hashSeed("writers", phase, w)),
    ),
  );

  // Untimed seed: every writer gets a document of its own and replaces each shared document
  // once, so each has rows to append to, update and delete from the first operation on.
  for (const w of writers) {
    const seeds = [await runOperation(t, w, "e11_new")];
    for (const documentId of sharedDocuments) {
      seeds.push(await runOperation(t, w, "e11_replace_shared", documentId));
    }
    const failed = seeds.find((s) => s.kind !== "ok");
    if (failed) throw new Error(`phase ${label} seed failed: ${JSON.stringify(failed)}`);
  }
  c.progress(
    `phase ${label}: ${c.writers} writers on ${datasetCount} dataset${datasetCount > 1 ? "s" : ""} for ${c.seconds} s`,
  );

  const outcomes = new Outcomes();
  let lastReport = 0;
  const run = await runConcurrent({
    clients: c.writers,
    durationMs: c.seconds * 1000,
    task: async (_iteration, client) => {
      const w = writers[client] as Writer;
      const op = resolveOperation(w, pickOperation(w.random()));
      const elapsed = startTimer();
      try {
        const outcome = await withDeadline(runOperation(t, w, op), REQUEST_DEADLINE_MS, op);
        outcomes.record(op, outcome, elapsed());
      } catch (error) {
        outcomes.fail(op, error);
      }
    },
    onProgress: (completed) => {
      if (completed - lastReport < 250) return;
      lastReport = completed;
      const r = outcomes.report(1);
      c.progress(
        `phase ${label}: ${fmt(completed)} requests, ${r.legitimate} legitimate 404/409, ${r.failed} failed`,
      );
    },
  });
  const elapsedMs = run.elapsedMs;
  const report = outcomes.report(elapsedMs);
  c.progress(
    `phase ${label}: ${fmt(report.ok)} ok in ${fmt(elapsedMs / 1000, 1)} s (${fmt(perSecond(report.ok, elapsedMs), 1)} ops/s, ${fmt(perSecond(report.rows_written, elapsedMs), 1)} rows/s), ${report.legitimate} legitimate, ${report.failed} failed ${JSON.stringify(report.by_status)}`,
  );
  for (const example of outcomes.examples) c.progress(`  ${example}`);

  const drain = await drainVectorBacklog(c, datasetIds);
  c.progress(
    `phase ${label}: vector backlog ${drain.pending_rows === 0 ? "drained" : `NOT drained (${drain.pending_rows} rows pending)`} in ${drain.seconds} s; checking integrity`,
  );
  const integrity = await checkPhase(c.databaseUrl, datasetIds, writers, shared);
  c.progress(
    `phase ${label}: invariants ${integrity.invariants_exact ? "exact" : "NOT exact"} (${integrity.rows_final} rows; structures ${integrity.structures.differences.length} differences, writes ${integrity.writes.differences.length})`,
  );
  for (const line of [...integrity.structures.differences, ...integrity.writes.differences]) {
    c.progress(`  ${line}`);
  }

  return {
    datasets: datasetCount,
    elapsed_s: round(elapsedMs / 1000, 1),
    ops: report.ok,
    ops_per_s: perSecond(report.ok, elapsedMs),
    rows_written: report.rows_written,
    rows_per_s: perSecond(report.rows_written, elapsedMs),
    answered_per_s: perSecond(report.ok + report.legitimate, elapsedMs),
    requests_per_s: perSecond(report.ok + report.legitimate + report.failed, elapsedMs),
    legitimate: report.legitimate,
    failed: report.failed,
    by_status: report.by_status,
    status_5xx: report.status_5xx,
    operations: report.operations,
    vector_backlog: drain,
    integrity,
  };
}

/** Polls each dataset until its vector backlog is empty, or the drain timeout. */
async function drainVectorBacklog(c: PhaseContext, datasetIds: string[]) {
  const elapsed = startTimer();
  let pending = Number.POSITIVE_INFINITY;
  while (elapsed() < c.drainTimeoutMs) {
    pending = 0;
    for (const id of datasetIds) {
      const dataset = await c.api.getDataset(id);
      pending += dataset.body.vector_index?.pending_rows ?? 0;
    }
    if (pending === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { pending_rows: pending, seconds: round(elapsed() / 1000, 1) };
}

function met(target: string, value: unknown, ok: boolean) {
  return { target, value, met: ok };
}
