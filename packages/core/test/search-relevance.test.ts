import { readFileSync } from "node:fs";
import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDataset, type ProjectContext, searchDocuments, upsertRows } from "../src/index.ts";
import { freshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

/**
 * The keyword ranking against the judged set in fixtures/relevance (see its README): nDCG@10
 * of BM25 (E3) and of plain `ts_rank_cd`, and BM25's scores against an independent
 * implementation of Lucene's formula over the same terms.
 */
interface Corpus {
  documents: { id: string; text: string }[];
  queries: { id: string; query: string; judgments: Record<string, number> }[];
}
const corpus = JSON.parse(
  readFileSync(new URL("./fixtures/relevance/corpus.json", import.meta.url), "utf8"),
) as Corpus;

let db: Database;
let close: () => Promise<void>;
let ctx: ProjectContext;
let datasetId: string;
beforeAll(async () => {
  const fresh = await freshDatabase();
  db = fresh.db;
  close = () => fresh.close();
  ctx = (await createTenant(db, "relevance")).ctx;
  datasetId = (
    await createDataset(
      ctx,
      { name: "relevance", kind: "hybrid" },
      { embeddingModel: "local/hash" },
    )
  ).id;
  for (const document of corpus.documents) {
    await upsertRows(ctx, datasetId, {
      document_id: document.id,
      rows: [{ data: { text: document.text } }],
    });
  }
});
afterAll(() => close());

/** nDCG@k with linear gains (trec_eval's, as BEIR reports it). */
export function ndcgAt(k: number, ranked: string[], judgments: Record<string, number>): number {
  const dcg = (gains: number[]) =>
    gains.slice(0, k).reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  const ideal = dcg(Object.values(judgments).sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked.map((id) => judgments[id] ?? 0)) / ideal;
}

async function bm25Ranking(query: string): Promise<string[]> {
  const { results } = await searchDocuments(ctx, datasetId, { query, top_k: 10 });
  return results.map((r) => r.document_id);
}

async function tsRankCdRanking(query: string): Promise<string[]> {
  const found = await db.execute(sql`
    WITH q AS (
      SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery AS q
      FROM unnest(to_tsvector('english', ${query}::text))
    )
    SELECT document_id FROM rows, q
    WHERE dataset_id = ${datasetId} AND fts @@ q.q
    ORDER BY ts_rank_cd(fts, q.q) DESC, document_id LIMIT 10`);
  return (found as unknown as { rows: { document_id: string }[] }).rows.map((r) => r.document_id);
}

describe("keyword relevance (judged set)", () => {
  it("ranks better than ts_rank_cd by nDCG@10", async () => {
    let bm25 = 0;
    let tsRankCd = 0;
    const perQuery: Record<string, { bm25: number; ts_rank_cd: number }> = {};
    for (const q of corpus.queries) {
      const a = ndcgAt(10, await bm25Ranking(q.query), q.judgments);
      const b = ndcgAt(10, await tsRankCdRanking(q.query), q.judgments);
      perQuery[q.id] = { bm25: round(a), ts_rank_cd: round(b) };
      bm25 += a;
      tsRankCd += b;
    }
    const n = corpus.queries.length;
    const summary = {
      queries: n,
      ndcg_at_10: { bm25: round(bm25 / n), ts_rank_cd: round(tsRankCd / n) },
    };
    console.log(JSON.stringify({ ...summary, per_query: perQuery }));
    expect(bm25 / n).toBeGreaterThan(tsRankCd / n);
    expect(bm25 / n).toBeGreaterThan(0.85);
  });

  it("scores documents exactly by Lucene's BM25 formula", async () => {
    // Terms per document as the database analysed them; the formula is applied here.
    const found = await db.execute(sql`
      SELECT r.document_id, u.lexeme AS term, sum(cardinality(u.positions))::int AS tf
      FROM rows r CROSS JOIN LATERAL unnest(r.fts) u
      WHERE r.dataset_id = ${datasetId} GROUP BY 1, 2`);
    const tfs = new Map<string, Map<string, number>>();
    for (const row of (
      found as unknown as { rows: { document_id: string; term: string; tf: number }[] }
    ).rows) {
      const terms = tfs.get(row.document_id) ?? new Map<string, number>();
      terms.set(row.term, row.tf);
      tfs.set(row.document_id, terms);
    }
    const length = (d: string) =>
      [...(tfs.get(d) ?? new Map()).values()].reduce((a, b) => a + b, 0);
    const docs = [...tfs.keys()];
    const avgdl = docs.reduce((sum, d) => sum + length(d), 0) / docs.length;
    const df = (t: string) => docs.filter((d) => tfs.get(d)!.has(t)).length;
    const idf = (t: string) => Math.log(1 + (docs.length - df(t) + 0.5) / (df(t) + 0.5));

    for (const q of corpus.queries) {
      const queryTerms = await db.execute(
        sql`SELECT lexeme AS term, cardinality(positions)::int AS n FROM unnest(to_tsvector('english', ${q.query}::text))`,
      );
      const terms = (queryTerms as unknown as { rows: { term: string; n: number }[] }).rows;
      const expected = docs
        .map((d) => {
          let score = 0;
          for (const { term, n } of terms) {
            const tf = tfs.get(d)!.get(term) ?? 0;
            if (tf > 0)
              score += n * idf(term) * (tf / (tf + 1.2 * (0.25 + (0.75 * length(d)) / avgdl)));
          }
          return { d, score };
        })
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || (a.d < b.d ? -1 : 1))
        .slice(0, 10);
      const { results } = await searchDocuments(ctx, datasetId, { query: q.query, top_k: 10 });
      expect(results.map((r) => r.document_id)).toEqual(expected.map((x) => x.d));
      for (const [i, r] of results.entries()) {
        expect(r.similarity).toBeCloseTo(expected[i]!.score, 9);
      }
    }
  });
});

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
