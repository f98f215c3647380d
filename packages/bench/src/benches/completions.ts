import http from "node:http";
import { FAKE_REPLY } from "../../../../workers/api/test/support/fake-openai-server.ts";
import { type Bench, scaled } from "../harness/bench.ts";
import { startBenchTenant } from "../harness/bench-tenant.ts";
import { runConcurrent } from "../harness/concurrency.ts";
import { loopbackUpstream } from "../harness/loopback-upstream.ts";
import { fmt } from "../harness/report.ts";
import { perSecond, round, type Summary, summarize } from "../harness/stats.ts";
import { createTextCorpus } from "../harness/text-corpus.ts";
import { timeStream } from "./completions/stream-timing.ts";

/**
 * `pnpm bench completions` (issue 6): E4 against a loopback OpenAI-compatible upstream that
 * streams a fixed reply (11 words, one chunk each, no delay). Measured over HTTP, each
 * sample interleaving the variants so they share the machine's state:
 * - time to first byte (the first SSE frame with text) from the upstream directly, and
 *   through Quarry without and with a search block (top_k 3 over a 1,000-row dataset,
 *   `local/hash`); "added" is Quarry's percentile minus the upstream's;
 * - the search alone (E2 with the block's query), the yardstick of the with-search target;
 * - the request floor: GET /api/endpoints/{id}, which is the same first database round trip
 *   (key and endpoint in one query, on a connection opened for the request) and nothing else;
 * - JSON (not streamed) replies, Quarry against the upstream: the overhead;
 * - streamed completions per second with 8 concurrent clients (no search).
 * Targets: added TTFB p50 <= 5 ms without search, <= search p50 + 5 ms with it.
 *
 * The upstream and how to point a running stack (`BASE`) at it: harness/loopback-upstream.ts.
 */
const SAMPLES = 200;
const WARMUP = 20;
const CLIENTS = 8;
const THROUGHPUT_COMPLETIONS = 400;
const DATASET_ROWS = 1000;
const TOP_K = 3;
const MODEL = "openai/reply";
const TARGET_ADDED_P50_MS = 5;

const upstream = loopbackUpstream();

export const completionsBench: Bench = {
  name: "completions",
  summary: "E4 added time to first byte (p50/p95, ± search), JSON overhead, completions/s at 8",
  prepare: upstream.prepare,
  async run({ target, http: client, scale, progress }) {
    const fake = upstream.started();
    const samples = scaled(SAMPLES, scale, { min: 20 });
    const throughputCount = scaled(THROUGHPUT_COMPLETIONS, scale, { step: CLIENTS });
    const rows = scaled(DATASET_ROWS, scale, { step: 100 });
    const params = {
      upstream: "loopback OpenAI-compatible server, fixed reply streamed without delay",
      reply_words: FAKE_REPLY.split(" ").length,
      model: MODEL,
      samples,
      warmup: WARMUP,
      search: { rows, top_k: TOP_K, embedding_model: "local/hash", kind: "standard" },
      concurrent_clients: CLIENTS,
      throughput_completions: throughputCount,
      stack: target.mode,
    };
    const { api, apiKey: token } = await startBenchTenant(
      { http: client, target, progress },
      "completions",
      params,
    );
    const corpus = createTextCorpus({ seed: 6, chars: 400 });
    const dataset = await api.createDataset({ name: "kb", embedding_model: "local/hash" });
    for (let i = 0; i < rows; i += 100) {
      await api.upsertRows(dataset.id, {
        rows: Array.from({ length: 100 }, (_, j) => ({ data: { text: corpus.text(i + j).text } })),
      });
    }
    progress(`dataset of ${rows} rows loaded`);
    const query = corpus.query(1).text;

    const createEndpoint = async (body: Record<string, unknown>) =>
      (await client.post<{ id: string }>("/api/endpoints", body, { token })).body.id;
    const plain = await createEndpoint({ name: "plain", model: MODEL, prompt: "Answer: {{q}}" });
    const searching = await createEndpoint({
      name: "search",
      model: MODEL,
      prompt: "Context: {{context}}\nAnswer: {{q}}",
      search: [{ dataset_id: dataset.id, variable: "context", query: "{{q}}", top_k: TOP_K }],
    });

    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const base = target.baseUrl;
    const upstreamUrl = fake.url;
    const direct = () =>
      timeStream(
        agent,
        `${upstreamUrl}/chat/completions`,
        {
          model: "reply",
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: "user", content: `Answer: ${query}` }],
        },
        "sk-bench",
      );
    const quarry = (endpointId: string) =>
      timeStream(
        agent,
        `${base}/api/endpoints/${endpointId}/completions`,
        { values: { q: query }, prompt: [], stream: true },
        token,
      );
    const quarryJson = async (endpointId: string) =>
      (
        await client.post(
          `/api/endpoints/${endpointId}/completions`,
          { values: { q: query }, prompt: [] },
          { token },
        )
      ).ms;
    const upstreamJson = () => {
      const started = process.hrtime.bigint();
      return fetchJson(agent, `${upstreamUrl}/chat/completions`, {
        model: "reply",
        messages: [{ role: "user", content: `Answer: ${query}` }],
      }).then(() => Number(process.hrtime.bigint() - started) / 1e6);
    };
    const search = async () =>
      (await client.post(`/api/datasets/${dataset.id}/search`, { query, top_k: TOP_K }, { token }))
        .ms;

    const check = await quarry(searching);
    if (check.text !== FAKE_REPLY) throw new Error(`unexpected reply: ${check.text}`);

    const ttfb = { upstream: [] as number[], plain: [] as number[], search: [] as number[] };
    const json = { upstream: [] as number[], quarry: [] as number[] };
    const searchMs: number[] = [];
    const floorMs: number[] = [];
    const floor = async () => (await client.get(`/api/endpoints/${plain}`, { token })).ms;
    progress(`sequential: ${samples} samples of each variant (+${WARMUP} warm-up)`);
    for (let i = 0; i < samples + WARMUP; i++) {
      const u = await direct();
      const p = await quarry(plain);
      const s = await quarry(searching);
      const e2 = await search();
      const ju = await upstreamJson();
      const jq = await quarryJson(plain);
      const f = await floor();
      if (i < WARMUP) continue;
      floorMs.push(f);
      ttfb.upstream.push(u.ttfbMs);
      ttfb.plain.push(p.ttfbMs);
      ttfb.search.push(s.ttfbMs);
      searchMs.push(e2);
      json.upstream.push(ju);
      json.quarry.push(jq);
      if ((i - WARMUP + 1) % 50 === 0) progress(`${i - WARMUP + 1}/${samples}`);
    }

    const summaries = {
      upstream: summarize(ttfb.upstream),
      plain: summarize(ttfb.plain),
      search: summarize(ttfb.search),
      e2: summarize(searchMs),
      floor: summarize(floorMs),
      jsonUpstream: summarize(json.upstream),
      jsonQuarry: summarize(json.quarry),
    };
    const added = (s: Summary, b: Summary) => ({
      p50: round(s.p50 - b.p50),
      p95: round(s.p95 - b.p95),
    });
    const addedPlain = added(summaries.plain, summaries.upstream);
    const addedSearch = added(summaries.search, summaries.upstream);
    progress(
      `TTFB p50: upstream ${summaries.upstream.p50} ms, Quarry ${summaries.plain.p50} ms, with search ${summaries.search.p50} ms; E2 ${summaries.e2.p50} ms; request floor ${summaries.floor.p50} ms`,
    );

    progress(`throughput: ${throughputCount} streamed completions, ${CLIENTS} clients`);
    const concurrent = await runConcurrent({
      clients: CLIENTS,
      count: throughputCount,
      task: async () => {
        const timing = await quarry(plain);
        if (timing.text !== FAKE_REPLY) throw new Error("truncated stream");
      },
    });
    const upstreamConcurrent = await runConcurrent({
      clients: CLIENTS,
      count: throughputCount,
      task: async () => {
        await direct();
      },
    });
    const rate = perSecond(concurrent.completed, concurrent.elapsedMs);
    progress(
      `${fmt(rate, 1)} completions/s (upstream alone: ${fmt(perSecond(upstreamConcurrent.completed, upstreamConcurrent.elapsedMs), 1)}/s)`,
    );
    agent.destroy();

    return {
      params,
      results: {
        ttfb_ms: {
          upstream: summaries.upstream,
          quarry: summaries.plain,
          quarry_with_search: summaries.search,
        },
        added_ttfb_ms: { without_search: addedPlain, with_search: addedSearch },
        search_e2_ms: summaries.e2,
        request_floor_ms: summaries.floor,
        added_ttfb_over_request_floor_p50_ms: round(summaries.plain.p50 - summaries.floor.p50),
        added_ttfb_with_search_minus_search_p50_ms: round(addedSearch.p50 - summaries.e2.p50),
        json_reply_ms: { upstream: summaries.jsonUpstream, quarry: summaries.jsonQuarry },
        json_overhead_ms: added(summaries.jsonQuarry, summaries.jsonUpstream),
        completions_per_second_8_clients: rate,
        upstream_alone_per_second_8_clients: perSecond(
          upstreamConcurrent.completed,
          upstreamConcurrent.elapsedMs,
        ),
        stream_latency_8_clients_ms: summarize(concurrent.samples),
        targets: {
          added_ttfb_p50_without_search_ms: TARGET_ADDED_P50_MS,
          added_ttfb_p50_with_search: `<= search p50 + ${TARGET_ADDED_P50_MS} ms`,
          met_without_search: addedPlain.p50 <= TARGET_ADDED_P50_MS,
          met_with_search: addedSearch.p50 <= summaries.e2.p50 + TARGET_ADDED_P50_MS,
        },
      },
    };
  },
};

function fetchJson(agent: http.Agent, url: string, body: unknown): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": payload.length },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("error", reject);
        res.on("end", () =>
          res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(text)),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
