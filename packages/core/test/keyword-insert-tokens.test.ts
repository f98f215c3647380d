import { beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  type ProjectContext,
  upsertRows,
  writeRowsOfDocument,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { checkInvariants } from "./support/invariants.ts";
import { createTenant } from "./support/tenant.ts";

/**
 * The keyword trigger counts an insert of one document's rows with `ts_stat` and every other
 * change by unnesting the rows' tsvectors (migration 0031). Both must keep the same statistics:
 * each case below writes through one of them and compares every keyword structure with its
 * recount from `rows` (support/invariants.ts).
 */
const database = useFreshDatabase();

let ctx: ProjectContext;
beforeAll(async () => {
  ctx = (await createTenant(database.db, "keyword-insert-tokens")).ctx;
});

async function keywordDataset(name: string): Promise<string> {
  const dataset = await createDataset(
    ctx,
    { name, kind: "hybrid" },
    {
      embeddingModel: "local/hash",
    },
  );
  return dataset.id;
}

/** Rows of several documents inserted by one statement, as no domain write does. */
async function insertInOneStatement(datasetId: string, rows: [string, string][]): Promise<void> {
  await database.fresh.sql(
    `INSERT INTO documents (project_id, dataset_id, id, status, metadata)
     SELECT DISTINCT $1, $2, d, 'ready', '{}'::jsonb FROM unnest($3::text[]) AS d`,
    [ctx.projectId, datasetId, rows.map(([document]) => document)],
  );
  await database.fresh.sql(
    `INSERT INTO rows (id, project_id, dataset_id, document_id, data, metadata, fts)
     SELECT v.id, $1, $2, v.document_id, jsonb_build_object('text', v.text),
            jsonb_build_object('documentId', v.document_id, 'rowId', v.id),
            to_tsvector('english', v.text)
     FROM (SELECT nextval(pg_get_serial_sequence('rows', 'id')) AS id, r.*
           FROM unnest($3::text[], $4::text[]) AS r(document_id, text)) AS v`,
    [ctx.projectId, datasetId, rows.map(([document]) => document), rows.map(([, text]) => text)],
  );
}

const TEXTS = [
  "The comet passed the comet, and the comet passed again.",
  "the and of", // stop words only: an empty tsvector
  "Bread, butter and bread again",
  "Comets and bakeries",
];

describe("keyword statistics of inserted rows", () => {
  it("hold for one document's rows counted by ts_stat, new and appended to", async () => {
    const datasetId = await keywordDataset("one-document");
    await upsertRows(ctx, datasetId, {
      document_id: "doc",
      rows: TEXTS.map((text) => ({ data: { text } })),
    });
    await writeRowsOfDocument(
      ctx,
      datasetId,
      "doc",
      { rows: [{ data: { text: "comet bread comet" } }] },
      "append",
    );
    expect(await checkInvariants(database.fresh, { datasetIds: [datasetId] })).toEqual([]);
    const [posting] = await database.fresh.sql<{ row_count: number; frequency: number }>(
      `SELECT row_count, frequency FROM keyword_postings
       WHERE dataset_id = $1 AND term = 'comet' AND document_id = 'doc'`,
      [datasetId],
    );
    // rows 1, 4 and the appended one; 3 + 1 + 2 positions
    expect(posting).toEqual({ row_count: 3, frequency: 6 });
  });

  it("hold for several documents' rows in one statement, counted by grouping", async () => {
    const datasetId = await keywordDataset("several-documents");
    await insertInOneStatement(
      datasetId,
      TEXTS.map((text, i) => [`doc-${i % 2}`, text]),
    );
    expect(await checkInvariants(database.fresh, { datasetIds: [datasetId] })).toEqual([]);
    const postings = await database.fresh.sql<{ document_id: string; row_count: number }>(
      `SELECT document_id, row_count FROM keyword_postings
       WHERE dataset_id = $1 AND term = 'comet' ORDER BY document_id`,
      [datasetId],
    );
    expect(postings).toEqual([
      { document_id: "doc-0", row_count: 1 },
      { document_id: "doc-1", row_count: 1 },
    ]);
  });

  it("hold for one document's rows inserted without any term", async () => {
    const datasetId = await keywordDataset("no-terms");
    await insertInOneStatement(datasetId, [
      ["doc", "the and of"],
      ["doc", ""],
    ]);
    expect(await checkInvariants(database.fresh, { datasetIds: [datasetId] })).toEqual([]);
    const postings = await database.fresh.sql(
      "SELECT 1 FROM keyword_postings WHERE dataset_id = $1",
      [datasetId],
    );
    expect(postings).toEqual([]);
  });
});
