import { beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  indexVectorBacklog,
  type ProjectContext,
  type UserMetadata,
  upsertRows,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { checkInvariants, findDifferences } from "./support/invariants.ts";
import { createTenant } from "./support/tenant.ts";

/**
 * The recomputation the concurrency suite trusts (support/invariants.ts) must be able to fail:
 * it holds on honestly written rows, and reports each structure corrupted by hand.
 */
const database = useFreshDatabase();

let ctx: ProjectContext;
beforeAll(async () => {
  ctx = (await createTenant(database.db, "invariants")).ctx;
});

/** A hybrid dataset with three documents: doc-a's rows in the graph, the rest in the backlog. */
async function seeded(name: string): Promise<string> {
  const dataset = await createDataset(
    ctx,
    { name, kind: "hybrid" },
    { embeddingModel: "local/hash" },
  );
  const write = (id: string, texts: string[], metadata: UserMetadata = {}) =>
    upsertRows(ctx, dataset.id, {
      document_id: id,
      rows: texts.map((text) => ({ data: { text }, metadata })),
    });
  await write("doc-a", ["The comet passed the comet.", "Bread and butter", "Central bank bonds"], {
    tag: "a",
    tags: ["x", "y"],
  });
  await write("doc-b", ["A comet over the bakery", "Rye bread rises"], { tag: "b" });
  await write("doc-c", ["Telescopes see far"]);
  await indexVectorBacklog(database.db, dataset.id, 3);
  return dataset.id;
}

describe("invariants", () => {
  it("hold for rows written through the domain", async () => {
    const datasetId = await seeded("clean");
    expect(await checkInvariants(database.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });

  it("report every structure corrupted by hand, and only that dataset", async () => {
    const clean = await seeded("untouched");
    const datasetId = await seeded("corrupted");
    const rowOf = async (document: string, n: number) => {
      const found = await database.fresh.sql<{ id: string | number }>(
        "SELECT id FROM rows WHERE dataset_id = $1 AND document_id = $2 ORDER BY id OFFSET $3 LIMIT 1",
        [datasetId, document, n],
      );
      return Number(found[0]!.id);
    };
    const [a0, a1, b0, b1, c0] = [
      await rowOf("doc-a", 0),
      await rowOf("doc-a", 1),
      await rowOf("doc-b", 0),
      await rowOf("doc-b", 1),
      await rowOf("doc-c", 0),
    ];
    const corruptions: [string, unknown[]][] = [
      [
        "UPDATE keyword_datasets SET total_length = total_length + 5 WHERE dataset_id = $1",
        [datasetId],
      ],
      ["INSERT INTO keyword_terms VALUES ($1, 'zzzbogus', 1, 1)", [datasetId]],
      [
        `UPDATE keyword_postings SET frequency = frequency + 1
         WHERE dataset_id = $1 AND term = 'comet' AND document_id = 'doc-a'`,
        [datasetId],
      ],
      ["INSERT INTO keyword_postings VALUES ($1, 'zzzghost', 'doc-a', 0, 0)", [datasetId]],
      [
        "UPDATE keyword_documents SET length = length + 1 WHERE dataset_id = $1 AND document_id = 'doc-b'",
        [datasetId],
      ],
      [
        `UPDATE row_filter_metadata SET metadata = metadata || '{"tag": "z"}'
         WHERE dataset_id = $1 AND row_id = $2`,
        [datasetId, b0],
      ],
      [
        `DELETE FROM row_filter_terms WHERE row_id = $1
         AND term_key = quarry_filter_term_key($2, 'tags', '"y"'::jsonb)`,
        [a0, datasetId],
      ],
      // a vector left behind by a row that is gone
      [
        "INSERT INTO indexed_vectors SELECT 999999999, dataset_id, embedding FROM rows WHERE id = $1",
        [a0],
      ],
      // a graph vector that is not its row's embedding any more
      [
        "UPDATE indexed_vectors SET embedding = (SELECT embedding FROM rows WHERE id = $2) WHERE row_id = $1",
        [a1, c0],
      ],
      // a backlog entry whose copy is not its row's embedding any more
      [
        "UPDATE vector_backlog SET embedding = (SELECT embedding FROM rows WHERE id = $2) WHERE row_id = $1",
        [b0, a0],
      ],
      // a row that waits for the graph in neither place
      ["DELETE FROM vector_backlog WHERE row_id = $1", [c0]],
      // a backlog count that no backlog change wrote (the delete above counted itself)
      ["INSERT INTO vector_backlog_counts VALUES ($1, 2)", [datasetId]],
      ["DELETE FROM documents WHERE dataset_id = $1 AND id = 'doc-c'", [datasetId]],
      // a service key that no longer says what its column does (the filter tables follow it)
      [`UPDATE rows SET metadata = metadata || '{"rowId": 1}' WHERE id = $1`, [b1]],
    ];
    for (const [text, params] of corruptions) await database.fresh.sql(text, params);

    const found = await findDifferences(database.fresh, { datasetIds: [datasetId] });
    expect(found.map((d) => [d.structure, d.kind, d.count])).toEqual([
      ["keyword_datasets", "wrong", 1],
      ["keyword_terms", "unexpected", 1],
      ["keyword_postings", "wrong", 1],
      ["keyword_postings", "zero-count left", 1],
      ["keyword_documents", "wrong", 1],
      ["row_filter_metadata", "wrong", 1],
      ["row_filter_terms", "missing", 1],
      ["vector_backlog/indexed_vectors", "graph orphan", 1],
      ["vector_backlog/indexed_vectors", "missing", 1],
      ["vector_backlog/indexed_vectors", "stale", 1],
      ["vector_backlog/indexed_vectors", "stale backlog", 1],
      ["vector_backlog_counts", "wrong", 1],
      ["documents", "rows without their document", 1],
      ["rows (mirrored metadata)", "wrong", 1],
    ]);
    const lines = await checkInvariants(database.fresh, { datasetIds: [datasetId] });
    expect(lines).toContain(
      `keyword_terms unexpected (1): [${datasetId} zzzbogus] row_frequency=1, document_frequency=1, recomputed: absent`,
    );
    expect(lines).toContain(
      `vector_backlog/indexed_vectors graph orphan (1): graph vector row 999999999 (dataset ${datasetId}): the row is gone`,
    );
    expect(lines).toContain(
      `vector_backlog/indexed_vectors stale (1): graph vector row ${a1} (dataset ${datasetId}) is not the row's current embedding`,
    );
    expect(lines).toContain(
      `vector_backlog/indexed_vectors stale backlog (1): backlog entry row ${b0} (dataset ${datasetId}) does not hold the row's current embedding`,
    );
    // doc-b's two rows wait (doc-c's entry went, and counted itself out); 2 were added by hand
    expect(lines).toContain(
      `vector_backlog_counts wrong (1): [${datasetId}] pending=4, recomputed pending=2`,
    );
    expect(lines).toContain(
      `documents rows without their document (1): 1 rows of document ${datasetId}/doc-c, which does not exist`,
    );
    expect(lines).toContain(
      `rows (mirrored metadata) wrong (1): [${datasetId} ${b1}] row_key=1, document_key="doc-b", url_key=null, recomputed row_key=${b1}, document_key="doc-b", url_key=null`,
    );
    expect(await checkInvariants(database.fresh, { datasetIds: [clean] })).toEqual([]);
  });
});
