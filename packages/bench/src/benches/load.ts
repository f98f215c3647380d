import http from "node:http";
import { type Bench, scaled } from "../harness/bench.ts";
import { startBenchTenant } from "../harness/bench-tenant.ts";
import { runConcurrent } from "../harness/concurrency.ts";
import { trackCpu } from "../harness/cpu.ts";
import { sampleDatabaseWaits } from "../harness/database-waits.ts";
import { loopbackUpstream } from "../harness/loopback-upstream.ts";
import { hashSeed, seededRandom } from "../harness/random.ts";
import { fmt } from "../harness/report.ts";
import { trackStatements } from "../harness/statements.ts";
import { perSecond, round, startTimer } from "../harness/stats.ts";
import { positiveIntegerEnv } from "../harness/target.ts";
import { createTextCorpus } from "../harness/text-corpus.ts";
import { verifyIntegrity } from "./load/integrity.ts";
import { heapNow, trackMemory } from "./load/memory.ts";
import {
  type Ledger,
  type LoadTarget,
  MIX,
  OPERATIONS,
  pickOperation,
  runOperation,
  UPSERT_ROWS,
} from "./load/operations.ts";
import { Recorder, withDeadline } from "./load/recorder.ts";
import { LoadTimeline } from "./load/timeline.ts";

/**
 * `pnpm bench load` (issue 7): LOAD_CLIENTS (16) concurrent clients for LOAD_SECONDS (60)
 * against the local stack, each picking its next request from a fixed mix: searches (E2
 * semantic and hybrid, E3, E1 on a hybrid dataset of 2,000 rows), E11 upserts of 10 rows
 * into new documents, E9 uploads of small text and CSV files (ingested by the queue worker
 * meanwhile), and E4 completions, JSON and streamed, half of them with a search block,
 * against a loopback OpenAI-compatible upstream (the e2e tests' fake server, `openai/reply`).
 *
 * Reports throughput, p50/p95/p99 per operation, failures by status (target: no 5xx), the
 * write integrity afterwards (every acknowledged upsert stored exactly once, every
 * acknowledged upload `ready` with exactly its rows, every acknowledged completion logged
 * once), the resident memory of each process at the start, peak and end, the CPU each
 * process role spent during the load (harness/cpu.ts), and the database's statements by the
 * time they took (harness/statements.ts), so a saturated machine says what saturates it.
 * The upstream and how to point a running stack (`BASE`) at it: harness/loopback-upstream.ts.
 */
const CLIENTS = 16;
const SECONDS = 60;
const SEED_ROWS = 2000;
const SEED_BATCH = 100;
const REQUEST_DEADLINE_MS = 60_000;
/** `results.timeline`'s window (`LOAD_WINDOW_SECONDS`) */
const WINDOW_SECONDS = 10;
/** the operations whose latency the timeline follows window by window */
const TIMELINE_SEARCHES = ["e2_semantic", "e2_hybrid"] as const;
const MODEL = "openai/reply";

const upstream = loopbackUpstream();

export const loadBench: Bench = {
  name: "load",
  summary:
    "16 clients × 60 s of mixed search, upserts, uploads, completions: latency, errors, integrity, RSS",
  prepare: upstream.prepare,
  async run({ target, http: client, scale, progress }) {
    upstream.started(); // the stack was pointed at it in prepare()
    const clients = positiveIntegerEnv("LOAD_CLIENTS", CLIENTS);
    const seconds = positiveIntegerEnv("LOAD_SECONDS", scaled(SECONDS, scale, { min: 5 }));
    const seedRows = scaled(SEED_ROWS, scale, { step: SEED_BATCH });
    const ingestTimeoutMs = Math.max(60_000, seconds * 2000);
    const params = {
      clients,
      seconds,
      mix_percent: MIX,
      dataset: { kind: "hybrid", embedding_model: "local/hash", seed_rows: seedRows },
      upsert_rows: UPSERT_ROWS,
      uploads: "alternately 3–6 paragraphs of text (chunk_size 1000) or a CSV of 5–14 records",
      completions: { model: MODEL, upstream: "loopback, fixed 11-word reply", search_half: true },
      request_deadline_ms: REQUEST_DEADLINE_MS,
      ingest_timeout_ms: ingestTimeoutMs,
      stack: target.mode,
    };
    const { api, apiKey: token } = await startBenchTenant(
      { http: client, target, progress },
      "load",
      params,
    );
    const corpus = createTextCorpus({ seed: 7, chars: 500 });
    const dataset = await api.createDataset({
      name: "load",
      kind: "hybrid",
      embedding_model: "local/hash",
    });
    for (let i = 0; i < seedRows; i += SEED_BATCH) {
      await api.upsertRows(dataset.id, {
        document_id: `seed-${i / SEED_BATCH}`,
        rows: Array.from({ length: SEED_BATCH }, (_, j) => ({
          data: { text: corpus.text(i + j).text },
        })),
      });
    }
    progress(`dataset of ${seedRows} rows loaded`);
    const createEndpoint = async (body: Record<string, unknown>) =>
      (await client.post<{ id: string }>("/api/endpoints", body, { token })).body.id;
    const endpoints = {
      plain: await createEndpoint({ name: "plain", model: MODEL, prompt: "Answer: {{q}}" }),
      search: await createEndpoint({
        name: "search",
        model: MODEL,
        prompt: "Context: {{context}}\nAnswer: {{q}}",
        search: [{ dataset_id: dataset.id, variable: "context", query: "{{q}}", top_k: 3 }],
      }),
    };

    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const ledger: Ledger = { upserts: [], uploads: [], completions: [] };
    const t: LoadTarget = {
      http: client,
      agent,
      baseUrl: target.baseUrl,
      token,
      datasetId: dataset.id,
      endpoints,
      corpus,
      ledger,
    };
    const recorder = new Recorder();
    const memory = trackMemory();
    const heapStart = heapNow();
    await memory.start();
    const cpu = trackCpu();
    const statements = trackStatements(target);
    await statements.start();
    const waits = sampleDatabaseWaits(target);
    await waits.start();
    await cpu.start();

    progress(`load: ${clients} clients for ${seconds} s`);
    const windowSeconds = positiveIntegerEnv("LOAD_WINDOW_SECONDS", WINDOW_SECONDS);
    const timeline = new LoadTimeline(TIMELINE_SEARCHES, performance.now());
    const readIndex = async () => {
      const index = (await api.getDataset(dataset.id)).body.vector_index;
      return { pending_rows: index?.pending_rows ?? null, graph: index?.graph ?? null };
    };
    // Closed on a timer of its own, not by the clients: a window in which every request
    // stalls must still show up.
    const windows = setInterval(() => {
      timeline
        .close(performance.now(), readIndex)
        .then((w) =>
          progress(
            `  at ${w.at_s} s: ${w.ok_per_s} ok/s, E2 semantic p50 ${w.p50_ms.e2_semantic ?? "-"} ms, hybrid ${w.p50_ms.e2_hybrid ?? "-"} ms; ${w.pending_rows ?? "?"} rows waiting for the graph (${w.graph})`,
          ),
        )
        .catch((error: unknown) => progress(`  timeline: ${String(error)}`));
    }, windowSeconds * 1000);
    const randoms = Array.from({ length: clients }, (_, c) => seededRandom(hashSeed("load", c)));
    const perClient = Array.from({ length: clients }, () => 0);
    let lastReport = 0;
    const load = await runConcurrent({
      clients,
      durationMs: seconds * 1000,
      task: async (_iteration, c) => {
        const op = pickOperation((randoms[c] as () => number)());
        const i = perClient[c]!++;
        const elapsed = startTimer();
        try {
          await withDeadline(runOperation(t, op, c, i), REQUEST_DEADLINE_MS, op);
          const ms = elapsed();
          recorder.ok(op, ms);
          timeline.record(op, ms);
        } catch (error) {
          recorder.fail(op, error);
          timeline.record(op, undefined);
        }
      },
      onProgress: (completed) => {
        if (completed - lastReport < 500) return;
        lastReport = completed;
        const totals = recorder.totals();
        progress(`${fmt(completed)} requests, ${totals.failed} failed`);
      },
    });
    clearInterval(windows);
    const elapsedMs = load.elapsedMs;
    const cpuReport = await cpu.stop();
    const statementReport = await statements.stop();
    const waitReport = await waits.stop();
    // What every semantic and hybrid search of the load ranked exactly at its end: the rows the
    // indexer had not moved into the graph yet (the graph grows ~4–6 ms a row; the mix writes
    // faster than that on 2 cores).
    const vectorIndex = (await api.getDataset(dataset.id)).body.vector_index;
    const backlogAfterLoad = {
      pending_rows: vectorIndex?.pending_rows ?? null,
      graph: vectorIndex?.graph ?? null,
      ef_search: vectorIndex?.ef_search ?? null,
    };
    const totals = recorder.totals();
    progress(
      `${fmt(load.completed)} requests in ${fmt(elapsedMs / 1000, 1)} s (${fmt(perSecond(load.completed, elapsedMs), 1)}/s), ${totals.failed} failed (${JSON.stringify(totals.by_kind)})`,
    );
    for (const example of recorder.examples) progress(`  ${example}`);
    progress(
      `vector index at the end of the load: ${fmt(backlogAfterLoad.pending_rows ?? 0)} rows waiting for the graph (searched exactly), graph ${backlogAfterLoad.graph}`,
    );
    progress(
      `CPU: ${cpuReport.machine.busy_cores} of ${cpuReport.machine.cores} cores busy; ${cpuReport.roles
        .filter((r) => r.cores >= 0.01)
        .map((r) => `${r.role} ${r.cores}`)
        .join(", ")}`,
    );
    if (statementReport.available) {
      for (const s of statementReport.top.slice(0, 5)) {
        progress(
          `  db ${Math.round(s.share * 100)}%: ${s.calls} × ${s.mean_ms} ms  ${s.query.slice(0, 90)}`,
        );
      }
    } else {
      progress(`database statements: ${statementReport.reason}`);
    }
    progress(
      waitReport.available
        ? `database backends: ${waitReport.active_backends_mean} busy on average; ${waitReport.waits
            .slice(0, 4)
            .map((w) => `${w.wait} ${Math.round(w.share * 100)}%`)
            .join(", ")}`
        : `database waits: ${waitReport.reason}`,
    );

    const integrity = await verifyIntegrity(t, {
      databaseUrl: target.databaseUrl,
      ingestTimeoutMs,
      progress,
    });
    const mem = await memory.stop();
    const heapEnd = heapNow();
    agent.destroy();
    progress(
      `integrity ${integrity.exact ? "exact" : "NOT exact"}: upserts ${integrity.upserts.exact}/${integrity.upserts.acknowledged}, uploads ${integrity.uploads.ready_exact}/${integrity.uploads.acknowledged} (drained in ${integrity.uploads.drain_s} s), completions logged ${integrity.completions.logged_once_ok}/${integrity.completions.acknowledged}`,
    );
    for (const p of mem.processes) {
      progress(
        `  RSS ${p.role} (${p.name} ${p.pid}): ${p.start_mb} → ${p.end_mb} MB (peak ${p.peak_mb})`,
      );
    }

    const operations = recorder.report(OPERATIONS, elapsedMs);
    return {
      params,
      results: {
        requests: load.completed,
        elapsed_s: round(elapsedMs / 1000, 1),
        requests_per_s: perSecond(load.completed, elapsedMs),
        ok_per_s: perSecond(totals.ok, elapsedMs),
        operations,
        errors: totals,
        integrity,
        vector_index_after_load: backlogAfterLoad,
        timeline: {
          window_s: windowSeconds,
          follows: TIMELINE_SEARCHES,
          note: "per window: successful requests/s, failures, p50 of each followed search, and the dataset's vector_index at the window's end (rows waiting for the graph are ranked exactly by every semantic search)",
          windows: timeline.windows,
        },
        cpu: cpuReport,
        database_statements: statementReport,
        database_waits: waitReport,
        memory: {
          processes: mem.processes,
          bench_heap_mb: { start: heapStart, end: heapEnd },
          note: "RSS in MB at the start of the load, its peak, and the end (after ingestion drained)",
        },
        targets: {
          no_5xx: { target: 0, value: totals.status_5xx, met: totals.status_5xx === 0 },
          no_failures: { target: 0, value: totals.failed, met: totals.failed === 0 },
          writes_exact: { met: integrity.exact },
        },
      },
    };
  },
};
