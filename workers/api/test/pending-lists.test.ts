import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSql, type SqlClient } from "../../../packages/local-stack/src/sql-client.ts";
import { type PrivateStackApi, privateStackTenant } from "./support/stack-client.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

/**
 * Row writes empty the search indexes' GIN pending lists after their reply once the isolate has
 * written PENDING_LIST_FLUSH_CHARACTERS of text (docs/indexing.md#the-keyword-index), well
 * before the `index-vectors` message, which the queue holds for the indexing window (5 s) after
 * the first write. A stack of its own: no other file's writes fill or empty its lists, and the
 * count is its isolate's alone.
 */

const FLUSH_CHARACTERS = 20_000;
const PENDING_LIST_INDEXES = [
  "rows_keyword_gin_idx",
  "rows_dataset_metadata_gin_idx",
  "row_filter_metadata_gin_idx",
];

let fx: TestStack;
let sql: SqlClient;
let api: PrivateStackApi;
let datasetId: string;

beforeAll(async () => {
  fx = await startTestStack({
    label: "pending-lists",
    vars: { PENDING_LIST_FLUSH_CHARACTERS: String(FLUSH_CHARACTERS) },
  });
  sql = await connectSql(fx.stack.databaseUrl);
  ({ api } = await privateStackTenant(fx, "pending-lists"));
  datasetId = (await api("POST", "/api/datasets", { name: "written", kind: "hybrid" })).body.id;
}, 180_000);

afterAll(async () => {
  await sql?.close();
  await fx?.stop();
});

/** 100 rows of `charsPerRow` characters each, every row with words of its own. */
function rows(document: string, charsPerRow: number) {
  return Array.from({ length: 100 }, (_, i) => {
    const words = Array.from({ length: 40 }, (_, w) => `${document}word${i}x${w}`).join(" ");
    return { data: { text: words.padEnd(charsPerRow, " filler").slice(0, charsPerRow) } };
  });
}

/** Empties each list; the pages each held, by index. */
async function emptyLists(): Promise<Record<string, number>> {
  const pages: Record<string, number> = {};
  for (const index of PENDING_LIST_INDEXES) {
    const [row] = await sql.query<{ pages: number }>(
      "SELECT gin_clean_pending_list($1::regclass) AS pages",
      [index],
    );
    pages[index] = Number(row?.pages);
  }
  return pages;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("GIN pending lists after row writes", () => {
  it("are left to the indexer below the isolate's count, and emptied after the reply that reaches it", async () => {
    await emptyLists();
    // 10,000 characters: below the count, so the entries stay pending.
    const first = await api("POST", `/api/datasets/${datasetId}/rows/upsert`, {
      document_id: "first",
      rows: rows("first", 100),
    });
    expect(first.status, first.text).toBe(200);
    await settle(500);
    const left = await emptyLists();
    for (const index of PENDING_LIST_INDEXES) expect(left[index], index).toBeGreaterThan(0);

    // 15,000 more: the count is reached, and the lists are emptied once the reply is out. Looked
    // at once, 2 s on (a look empties them too), still before the indexer's message for the
    // first write, which the queue holds 5 s.
    const second = await api("POST", `/api/datasets/${datasetId}/rows/upsert`, {
      document_id: "second",
      rows: rows("second", 150),
    });
    expect(second.status, second.text).toBe(200);
    await settle(2_000);
    expect(await emptyLists()).toEqual(
      Object.fromEntries(PENDING_LIST_INDEXES.map((index) => [index, 0])),
    );
  });
});
