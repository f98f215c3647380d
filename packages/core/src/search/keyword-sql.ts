import { type SQL, sql } from "drizzle-orm";
import { KEYWORD_CONFIG } from "../rows/keyword-config.ts";

/**
 * BM25 as Lucene computes it (`BM25Similarity`, k1 = 1.2, b = 0.75):
 *   score(D, Q) = Σ_{t ∈ Q} qtf(t) · idf(t) · tf(t, D) / (tf(t, D) + k1 · (1 − b + b · |D| / avgdl))
 *   idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
 * Terms are the lexemes of Postgres' `english` configuration (stemmed, stop words removed: the
 * counterpart of Lucene's EnglishAnalyzer); |D| counts a unit's terms. Lucene dropped the
 * constant (k1 + 1) factor in 8.0; ranking is the same either way.
 *
 * Two units are ranked: rows (hybrid search) and documents (E3), each with its own N, n(t)
 * and avgdl from the statistics the row triggers keep (`keyword_*` tables): each figure is its
 * base row plus the deltas writers appended since the last fold (`keyword-deltas.ts`).
 * Trigger-kept tables: packages/db/README.md.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** `tf / (tf + k1 · (1 − b + b · length / avgdl))`, Lucene's saturated term frequency. */
export function saturatedTf(tf: SQL, length: SQL, avgdl: SQL): SQL {
  return sql`(${tf}::float8 / (${tf} + ${BM25_K1}::float8 * (${1 - BM25_B}::float8 + ${BM25_B}::float8 * ${length}::float8 / ${avgdl})))`;
}

/**
 * CTEs for the query's terms in a dataset, for ranking `unit`s (names prefixed `row_` or
 * `doc_`, so both can appear in one statement):
 * - `<p>_query(term, weight)`: the query's lexemes and how often each occurs in it;
 * - `<p>_stats(n, avgdl)`: N and the average length of the unit in the dataset;
 * - `<p>_terms(term, idf, frequency)`: the query terms the dataset has, idf × query weight,
 *   and in how many units each occurs.
 * Terms the dataset has never seen score nothing and are left out, as in Lucene.
 * Each query term is looked up on its own (a lateral join on both key columns): written as
 * `term = ANY (…)`, Postgres kept only `dataset_id` as the index condition whenever its
 * estimate for the dataset was low, and read every term of the dataset (1,739 at 12k rows,
 * 0.9 ms of a 12 ms hybrid search).
 */
export function keywordTermsCtes(datasetId: string, query: string, unit: "row" | "document"): SQL {
  const p = sql.raw(unit === "row" ? "row" : "doc");
  const count = sql.raw(unit === "row" ? "row_count" : "document_count");
  const frequency = sql.raw(unit === "row" ? "row_frequency" : "document_frequency");
  return sql`${p}_query AS (
    SELECT u.lexeme AS term, coalesce(cardinality(u.positions), 1)::float8 AS weight
    FROM unnest(to_tsvector(${KEYWORD_CONFIG}::regconfig, ${query}::text)) AS u
  ),
  ${p}_stats AS (
    SELECT (k.${count} + d.${count})::float8 AS n,
           (k.total_length + d.total_length)::float8 / greatest(k.${count} + d.${count}, 1) AS avgdl
    FROM keyword_datasets k CROSS JOIN LATERAL (
      SELECT coalesce(sum(x.${count}), 0) AS ${count}, coalesce(sum(x.total_length), 0) AS total_length
      FROM keyword_dataset_deltas x WHERE x.dataset_id = k.dataset_id
    ) d
    WHERE k.dataset_id = ${datasetId}
  ),
  ${p}_terms AS MATERIALIZED (
    SELECT t.term, t.frequency,
           q.weight * ln(1 + (s.n - t.frequency + 0.5) / (t.frequency + 0.5)) AS idf
    FROM (
      SELECT q.term, sum(x.frequency)::integer AS frequency
      FROM ${p}_query q CROSS JOIN LATERAL (
        SELECT ${frequency} AS frequency FROM keyword_terms
        WHERE dataset_id = ${datasetId} AND term = q.term
        UNION ALL
        SELECT ${frequency} FROM keyword_term_deltas
        WHERE dataset_id = ${datasetId} AND term = q.term
      ) x
      GROUP BY q.term
    ) t
    JOIN ${p}_query q ON q.term = t.term
    CROSS JOIN ${p}_stats s
    WHERE t.frequency > 0
  )`;
}

/**
 * The condition "row `r` is in the dataset and matches `tsquery`", written to the keyword
 * index's expression (`rows_keyword_gin_idx`, migration 0022: GIN over `dataset_id || ''` and
 * `fts`). The dataset is named only through that expression, which no btree index covers, so
 * Postgres finds the rows in one scan of that index whatever it estimates. Written
 * `r.dataset_id = …`, a dataset the statistics did not know yet (created or filled since the
 * table's last ANALYZE, estimated at one row) was read row by row through the dataset's btree
 * and each row's tsvector tested: 31 of a 56 ms hybrid search under `pnpm bench load`, on a
 * dataset of 6,000 rows.
 */
export function keywordMatch(datasetId: string, tsquery: SQL): SQL {
  return sql`(r.dataset_id || '') = ${datasetId} AND r.fts @@ ${tsquery}`;
}

/**
 * A tsquery matching any of the terms in `termsSql` (a query yielding a `term` column), built
 * from the lexemes themselves: quoted, so nothing re-parses or re-stems them.
 */
export function anyTermTsquery(termsSql: SQL): SQL {
  return sql`(SELECT string_agg('''' || replace(replace(x.term, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery FROM (${termsSql}) AS x)`;
}

/**
 * `row_arr(terms, idfs, avgdl)`: the row-level query terms as sorted arrays, for scoring rows
 * one at a time without a join per row. Needs `keywordTermsCtes(…, "row")` before it.
 */
export const rowTermArraysCte = sql`row_arr AS MATERIALIZED (
    SELECT coalesce(array_agg(term ORDER BY term), '{}') AS terms,
           coalesce(array_agg(idf ORDER BY term), '{}') AS idfs,
           (SELECT avgdl FROM row_stats) AS avgdl
    FROM row_terms
  )`;

/**
 * BM25 of the row `r` (0 when it has none of the terms), with `row_arr` joined as `a`. The
 * row's tsvector is cut down to the query terms in C (`setweight` marks them, `ts_filter`
 * keeps them), so only those few lexemes are unnested.
 */
export const rowBm25 = sql`coalesce((
    SELECT sum(a.idfs[array_position(a.terms, u.lexeme)]
               * ${saturatedTf(sql`coalesce(cardinality(u.positions), 1)`, sql`r.keyword_length`, sql`a.avgdl`)})
    FROM unnest(ts_filter(setweight(r.fts, 'A', a.terms), '{a}')) AS u
  ), 0)`;
