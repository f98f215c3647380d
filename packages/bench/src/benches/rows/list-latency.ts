import type { ListParams, QuarryApi, Row } from "../../harness/api.ts";
import { type Summary, summarize } from "../../harness/stats.ts";
import { BUCKETS, nthInBucket } from "./workload.ts";

/**
 * E6 latency cases over the loaded dataset (rows 0..total-1, `n` = insertion position). Each
 * reply is checked, so a fast wrong answer (an ignored filter or offset) fails the benchmark
 * instead of producing a figure.
 */
export interface ListCase {
  name: string;
  form: "query" | "body";
  /** parameters of request `i`; filtered cases rotate the bucket so no value is favoured */
  params(i: number): ListParams;
  /** `n` of the first row request `i` must return, and how many rows */
  expect(i: number): { firstN: number; count: number; bucket?: number };
}

/**
 * The cases; `deepAfter` is the id of the row just before `deepOffset`, where `deep_after`
 * starts the same page as `deep_offset` from that id instead of counting to it.
 */
export function listCases(
  total: number,
  pageSize: number,
  deepOffset: number,
  deepAfter: number,
): ListCase[] {
  const perBucket = total / BUCKETS;
  const filteredOffset = Math.floor(perBucket / 2);
  const bucket = (i: number) => (i * 7) % BUCKETS;
  const page = (offset: number, available: number) =>
    Math.max(0, Math.min(pageSize, available - offset));
  const filtered = (name: string, offset: number, form: "query" | "body"): ListCase => ({
    name,
    form,
    params: (i) => ({ offset, page_size: pageSize, filter: { bucket: bucket(i) } }),
    expect: (i) => ({
      firstN: nthInBucket(bucket(i), offset),
      count: page(offset, perBucket),
      bucket: bucket(i),
    }),
  });
  return [
    {
      name: "first_page",
      form: "query",
      params: () => ({ offset: 0, page_size: pageSize }),
      expect: () => ({ firstN: 0, count: page(0, total) }),
    },
    {
      name: "deep_offset",
      form: "query",
      params: () => ({ offset: deepOffset, page_size: pageSize }),
      expect: () => ({ firstN: deepOffset, count: page(deepOffset, total) }),
    },
    {
      name: "deep_after",
      form: "query",
      params: () => ({ offset: 0, page_size: pageSize, after: deepAfter }),
      expect: () => ({ firstN: deepOffset, count: page(deepOffset, total) }),
    },
    filtered("filtered_first_page", 0, "query"),
    filtered("filtered_offset", filteredOffset, "query"),
    filtered("filtered_first_page_json_body", 0, "body"),
  ];
}

/** The id of the row at position `n` (one request), where a page `after` it starts at n + 1. */
export async function rowIdAt(api: QuarryApi, datasetId: string, n: number): Promise<number> {
  const reply = await api.listRows(datasetId, { offset: n, page_size: 1 });
  const row = reply.body[0];
  if (!row || row.metadata.n !== n) throw new Error(`E6: no row at position ${n}`);
  return row.id;
}

export async function measureListCase(
  api: QuarryApi,
  datasetId: string,
  listCase: ListCase,
  { requests, warmup }: { requests: number; warmup: number },
): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + requests; i++) {
    const reply = await api.listRows(datasetId, listCase.params(i), listCase.form);
    checkPage(listCase, i, datasetId, reply.body);
    if (i >= warmup) samples.push(reply.ms);
  }
  return summarize(samples);
}

function checkPage(listCase: ListCase, i: number, datasetId: string, rows: Row[]): void {
  const expected = listCase.expect(i);
  const fail = (what: string) => {
    throw new Error(`E6 ${listCase.name} request ${i}: ${what}`);
  };
  if (!Array.isArray(rows)) fail("the reply is not an array");
  if (rows.length !== expected.count) fail(`${rows.length} rows, expected ${expected.count}`);
  if (rows.length > 0 && rows[0]?.metadata.n !== expected.firstN) {
    fail(`first row has n=${String(rows[0]?.metadata.n)}, expected ${expected.firstN}`);
  }
  rows.forEach((row, k) => {
    if (row.dataset_id !== datasetId) fail(`row ${row.id} belongs to dataset ${row.dataset_id}`);
    if (k > 0 && row.id <= (rows[k - 1] as Row).id) fail("rows are not in insertion order");
    if (expected.bucket !== undefined && row.metadata.bucket !== expected.bucket) {
      fail(
        `row ${row.id} has bucket ${String(row.metadata.bucket)}, filter was ${expected.bucket}`,
      );
    }
  });
}
