import { type Database, documents } from "@quarry/db";
import { and, eq, inArray } from "drizzle-orm";
import { documentRowCount } from "../../src/documents/row-counts.ts";

/**
 * Everything Quarry maintains beside `rows`, recomputed from `rows` from scratch and compared
 * exactly (docs/indexing.md, packages/db/CONCURRENCY.md). Each structure has one function below:
 * what the maintained side is read from (the `maintained` query) is written once, so a change of
 * the schema — e.g. statistics split into a base table and appended deltas — is adapted in one
 * place.
 *
 * The comparisons run in SQL (a full join of "maintained" and "recomputed" on the structure's
 * key), so a suite can check tens of thousands of postings in one round trip per structure.
 */

/** One statement with bound parameters (`$1`…), its rows. Both engines' test helpers have it. */
export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export interface InvariantTarget {
  db: Database;
  sql: Sql;
}

export interface InvariantScope {
  /** only these datasets (default: every dataset in the database) */
  datasetIds?: string[];
  /** examples shown per kind of difference (default 5); the count is always exact */
  examples?: number;
}

/** A kind of difference in one structure, with how many entries differ and a few of them. */
export interface Difference {
  structure: string;
  /** e.g. `missing` (recomputed, not maintained), `unexpected`, `wrong`, `orphan`, `stale` */
  kind: string;
  count: number;
  examples: string[];
}

/** The differences, one human-readable line per structure and kind; empty when all hold. */
export async function checkInvariants(
  target: InvariantTarget,
  scope: InvariantScope = {},
): Promise<string[]> {
  return (await findDifferences(target, scope)).map(describeDifference);
}

export function describeDifference(d: Difference): string {
  const more = d.count > d.examples.length ? `; … ${d.count - d.examples.length} more` : "";
  return `${d.structure} ${d.kind} (${d.count}): ${d.examples.join("; ")}${more}`;
}

export async function findDifferences(
  target: InvariantTarget,
  scope: InvariantScope = {},
): Promise<Difference[]> {
  const checks = [
    keywordDatasets,
    keywordTerms,
    keywordPostings,
    keywordDocuments,
    rowFilterMetadata,
    rowFilterTerms,
    vectorBacklogAndGraph,
    vectorBacklogCounts,
    documentRowCounts,
    mirroredMetadata,
  ];
  const found: Difference[] = [];
  for (const check of checks) found.push(...(await check(target, scope)));
  return found;
}

// --- the structures ------------------------------------------------------------------------

/**
 * Per dataset: rows with keyword terms, documents with keyword length, and the total length
 * (0003/0004). Maintained: `keyword_datasets` plus, where the schema has them, the appended
 * `keyword_dataset_deltas` not folded yet. Every dataset has its statistics row.
 */
export async function keywordDatasets(t: InvariantTarget, s: InvariantScope) {
  const deltas = await hasTable(t, "keyword_dataset_deltas");
  return compareSets(t, s, {
    structure: "keyword_datasets",
    key: ["dataset_id"],
    values: ["row_count", "document_count", "total_length"],
    maintained: `SELECT k.dataset_id, (k.row_count + coalesce(d.row_count, 0))::bigint AS row_count,
        (k.document_count + coalesce(d.document_count, 0))::bigint AS document_count,
        (k.total_length + coalesce(d.total_length, 0))::bigint AS total_length
      FROM keyword_datasets k
      LEFT JOIN (${
        deltas
          ? `SELECT dataset_id, sum(row_count) AS row_count, sum(document_count) AS document_count,
               sum(total_length) AS total_length FROM keyword_dataset_deltas GROUP BY 1`
          : "SELECT NULL::text AS dataset_id, 0 AS row_count, 0 AS document_count, 0 AS total_length WHERE false"
      }) d ON d.dataset_id = k.dataset_id`,
    recomputed: `SELECT d.id AS dataset_id,
        count(r.id) FILTER (WHERE r.keyword_length > 0)::bigint AS row_count,
        count(DISTINCT r.document_id) FILTER (WHERE r.keyword_length > 0)::bigint AS document_count,
        coalesce(sum(r.keyword_length), 0)::bigint AS total_length
      FROM datasets d LEFT JOIN rows r ON r.dataset_id = d.id GROUP BY d.id`,
  });
}

/**
 * Per dataset and term: rows containing it and documents containing it. Maintained:
 * `keyword_terms` plus, where the schema has them, `keyword_term_deltas`. A term no row has any
 * more must be gone (unless deltas for it still wait to be folded).
 */
export async function keywordTerms(t: InvariantTarget, s: InvariantScope) {
  const deltas = await hasTable(t, "keyword_term_deltas");
  const pending = deltas
    ? `SELECT dataset_id, term, sum(row_frequency) AS row_frequency,
         sum(document_frequency) AS document_frequency, count(*) AS deltas
       FROM keyword_term_deltas GROUP BY 1, 2`
    : `SELECT NULL::text AS dataset_id, NULL::text AS term, 0 AS row_frequency,
         0 AS document_frequency, 0 AS deltas WHERE false`;
  return compareSets(t, s, {
    structure: "keyword_terms",
    key: ["dataset_id", "term"],
    values: ["row_frequency", "document_frequency"],
    // A term at zero with deltas still to fold is as good as absent; at zero with nothing
    // pending it is a leftover, reported as `zero-count left`.
    maintained: `SELECT * FROM (SELECT coalesce(k.dataset_id, d.dataset_id) AS dataset_id,
        coalesce(k.term, d.term) AS term,
        (coalesce(k.row_frequency, 0) + coalesce(d.row_frequency, 0))::bigint AS row_frequency,
        (coalesce(k.document_frequency, 0) + coalesce(d.document_frequency, 0))::bigint AS document_frequency,
        coalesce(d.deltas, 0) > 0 AS pending
      FROM keyword_terms k FULL JOIN (${pending}) d
        ON d.dataset_id = k.dataset_id AND d.term = k.term) t
      WHERE NOT (t.row_frequency = 0 AND t.document_frequency = 0 AND t.pending)`,
    zero: "row_frequency = 0 AND document_frequency = 0 AND NOT pending",
    recomputed: `SELECT r.dataset_id, u.lexeme AS term, count(*)::bigint AS row_frequency,
        count(DISTINCT r.document_id)::bigint AS document_frequency
      FROM rows r CROSS JOIN LATERAL unnest(r.fts) AS u
      WHERE r.dataset_id IN (SELECT id FROM datasets) GROUP BY 1, 2`,
  });
}

/**
 * Per dataset, term and document: the document's rows containing the term, and the term's
 * occurrences in them (positions; 1 for a lexeme stored without). No zero-count postings.
 */
export async function keywordPostings(t: InvariantTarget, s: InvariantScope) {
  return compareSets(t, s, {
    structure: "keyword_postings",
    key: ["dataset_id", "term", "document_id"],
    values: ["row_count", "frequency"],
    maintained: `SELECT dataset_id, term, document_id, row_count::bigint, frequency::bigint
      FROM keyword_postings`,
    zero: "row_count = 0 AND frequency = 0",
    recomputed: `SELECT r.dataset_id, u.lexeme AS term, r.document_id, count(*)::bigint AS row_count,
        sum(coalesce(cardinality(u.positions), 1))::bigint AS frequency
      FROM rows r CROSS JOIN LATERAL unnest(r.fts) AS u
      WHERE r.dataset_id IN (SELECT id FROM datasets) GROUP BY 1, 2, 3`,
  });
}

/** Per document: its rows (all of them) and the sum of their keyword lengths. */
export async function keywordDocuments(t: InvariantTarget, s: InvariantScope) {
  return compareSets(t, s, {
    structure: "keyword_documents",
    key: ["dataset_id", "document_id"],
    values: ["row_count", "length"],
    maintained:
      "SELECT dataset_id, document_id, row_count::bigint, length::bigint FROM keyword_documents",
    zero: "row_count = 0 AND length = 0",
    recomputed: `SELECT dataset_id, document_id, count(*)::bigint AS row_count,
        coalesce(sum(keyword_length), 0)::bigint AS length
      FROM rows WHERE dataset_id IN (SELECT id FROM datasets) GROUP BY 1, 2`,
  });
}

/** E6's narrow copy of every row's metadata (0007). */
export async function rowFilterMetadata(t: InvariantTarget, s: InvariantScope) {
  return compareSets(t, s, {
    structure: "row_filter_metadata",
    key: ["dataset_id", "row_id"],
    values: ["metadata"],
    maintained: "SELECT dataset_id, row_id, metadata FROM row_filter_metadata",
    recomputed: "SELECT dataset_id, id AS row_id, metadata FROM rows",
  });
}

/** The equality terms of every row's metadata (0007); the table has no dataset column. */
export async function rowFilterTerms(t: InvariantTarget, s: InvariantScope) {
  return compareSets(t, s, {
    structure: "row_filter_terms",
    key: ["row_id", "term_key"],
    values: [],
    // The dataset of a term's row, for scoping; a term whose row is gone keeps it null and is
    // reported whatever the scope.
    maintained: `SELECT r.dataset_id, t.row_id, t.term_key::text AS term_key
      FROM row_filter_terms t LEFT JOIN rows r ON r.id = t.row_id`,
    recomputed: `SELECT r.dataset_id, r.id AS row_id, k::text AS term_key
      FROM rows r CROSS JOIN LATERAL quarry_filter_term_keys(r.dataset_id, r.metadata) AS k`,
  });
}

/**
 * Backlog ∪ graph = the embedded rows, each exactly once (0008): no embedded row in neither or
 * in both, no backlog entry or graph vector without its embedded row (`orphan`), no graph
 * vector other than its row's current embedding (`stale`) or filed under another dataset, no
 * backlog copy other than its row's current embedding (`stale backlog`: searches rank it).
 */
export async function vectorBacklogAndGraph(t: InvariantTarget, s: InvariantScope) {
  const examples = s.examples ?? 5;
  const rows = await t.sql<{ kind: string; count: number | string; examples: string[] | null }>(
    `WITH embedded AS (SELECT id, dataset_id, embedding FROM rows
                  WHERE embedding IS NOT NULL
                    AND ($1::jsonb IS NULL OR dataset_id IN (SELECT jsonb_array_elements_text($1::jsonb)))),
     found AS (
       SELECT 'missing' AS kind, format('row %s (dataset %s) is in neither the backlog nor the graph', e.id, e.dataset_id) AS detail
       FROM embedded e
       WHERE NOT EXISTS (SELECT 1 FROM vector_backlog b WHERE b.row_id = e.id AND b.dataset_id = e.dataset_id)
         AND NOT EXISTS (SELECT 1 FROM indexed_vectors v WHERE v.row_id = e.id AND v.dataset_id = e.dataset_id)
       UNION ALL
       SELECT 'in both', format('row %s (dataset %s) is in the backlog and in the graph', e.id, e.dataset_id)
       FROM embedded e
       WHERE EXISTS (SELECT 1 FROM vector_backlog b WHERE b.row_id = e.id AND b.dataset_id = e.dataset_id)
         AND EXISTS (SELECT 1 FROM indexed_vectors v WHERE v.row_id = e.id AND v.dataset_id = e.dataset_id)
       UNION ALL
       SELECT 'backlog orphan', format('backlog entry row %s (dataset %s): %s', b.row_id, b.dataset_id,
         CASE WHEN r.id IS NULL THEN 'the row is gone' WHEN r.embedding IS NULL THEN 'the row has no embedding'
              ELSE format('the row is in dataset %s', r.dataset_id) END)
       FROM vector_backlog b LEFT JOIN rows r ON r.id = b.row_id
       WHERE (r.id IS NULL OR r.embedding IS NULL OR r.dataset_id <> b.dataset_id)
         AND ($1::jsonb IS NULL OR b.dataset_id IN (SELECT jsonb_array_elements_text($1::jsonb)))
       UNION ALL
       SELECT 'graph orphan', format('graph vector row %s (dataset %s): %s', v.row_id, v.dataset_id,
         CASE WHEN r.id IS NULL THEN 'the row is gone' WHEN r.embedding IS NULL THEN 'the row has no embedding'
              ELSE format('the row is in dataset %s', r.dataset_id) END)
       FROM indexed_vectors v LEFT JOIN rows r ON r.id = v.row_id
       WHERE (r.id IS NULL OR r.embedding IS NULL OR r.dataset_id <> v.dataset_id)
         AND ($1::jsonb IS NULL OR v.dataset_id IN (SELECT jsonb_array_elements_text($1::jsonb)))
       UNION ALL
       SELECT 'stale', format('graph vector row %s (dataset %s) is not the row''s current embedding', v.row_id, v.dataset_id)
       FROM indexed_vectors v JOIN embedded e ON e.id = v.row_id AND e.dataset_id = v.dataset_id
       WHERE v.embedding::text IS DISTINCT FROM e.embedding::text
       UNION ALL
       SELECT 'stale backlog', format('backlog entry row %s (dataset %s) does not hold the row''s current embedding', b.row_id, b.dataset_id)
       FROM vector_backlog b JOIN embedded e ON e.id = b.row_id AND e.dataset_id = b.dataset_id
       WHERE b.embedding::text IS DISTINCT FROM e.embedding::text
     )
     SELECT kind, count(*) AS count, (array_agg(detail ORDER BY detail))[1:$2::int] AS examples
     FROM found GROUP BY kind ORDER BY kind`,
    [scopeParameter(s), examples],
  );
  return rows.map((r) => ({
    structure: "vector_backlog/indexed_vectors",
    kind: r.kind,
    count: Number(r.count),
    examples: r.examples ?? [],
  }));
}

/**
 * Per dataset: how many rows wait in its backlog (0026). Maintained: the sum of the dataset's
 * appended `vector_backlog_counts`, where the schema has them. A dataset at zero may keep a
 * folded row of 0 or none at all; a deleted dataset's counts must not add up to anything.
 */
export async function vectorBacklogCounts(t: InvariantTarget, s: InvariantScope) {
  if (!(await hasTable(t, "vector_backlog_counts"))) return [];
  return compareSets(t, s, {
    structure: "vector_backlog_counts",
    key: ["dataset_id"],
    values: ["pending"],
    maintained: `SELECT dataset_id, sum(pending)::bigint AS pending
      FROM vector_backlog_counts GROUP BY 1 HAVING sum(pending) <> 0`,
    recomputed: `SELECT dataset_id, count(*)::bigint AS pending FROM vector_backlog GROUP BY 1`,
  });
}

/**
 * Documents and their rows: every row belongs to a document that exists, and the row count
 * the domain reports for a document (`documentRowCount`, what E7 shows) is its rows'.
 */
export async function documentRowCounts(t: InvariantTarget, s: InvariantScope) {
  const examples = s.examples ?? 5;
  const differences: Difference[] = [];
  const homeless = await t.sql<{ dataset_id: string; document_id: string; n: number | string }>(
    `SELECT r.dataset_id, r.document_id, count(*) AS n FROM rows r
     WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.dataset_id = r.dataset_id AND d.id = r.document_id)
       AND ($1::jsonb IS NULL OR r.dataset_id IN (SELECT jsonb_array_elements_text($1::jsonb)))
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [scopeParameter(s)],
  );
  if (homeless.length > 0) {
    differences.push({
      structure: "documents",
      kind: "rows without their document",
      count: homeless.length,
      examples: homeless
        .slice(0, examples)
        .map(
          (h) => `${h.n} rows of document ${h.dataset_id}/${h.document_id}, which does not exist`,
        ),
    });
  }
  const counted = await t.sql<{ dataset_id: string; id: string; n: number | string }>(
    `SELECT d.dataset_id, d.id, (SELECT count(*) FROM rows r
       WHERE r.dataset_id = d.dataset_id AND r.document_id = d.id) AS n
     FROM documents d
     WHERE $1::jsonb IS NULL OR d.dataset_id IN (SELECT jsonb_array_elements_text($1::jsonb))
     ORDER BY 1, 2`,
    [scopeParameter(s)],
  );
  const byDataset = new Map<string, { id: string; n: number }[]>();
  for (const c of counted) {
    const list = byDataset.get(c.dataset_id) ?? [];
    list.push({ id: c.id, n: Number(c.n) });
    byDataset.set(c.dataset_id, list);
  }
  const wrong: string[] = [];
  for (const [datasetId, docs] of byDataset) {
    // The count E7 shows, through the expression it selects.
    const found = await t.db
      .select({ id: documents.id, n: documentRowCount })
      .from(documents)
      .where(
        and(
          eq(documents.datasetId, datasetId),
          inArray(
            documents.id,
            docs.map((d) => d.id),
          ),
        ),
      );
    const reported = new Map(found.map((d) => [d.id, d.n]));
    for (const doc of docs) {
      const n = reported.get(doc.id) ?? 0;
      if (n !== doc.n) wrong.push(`${datasetId}/${doc.id}: reported ${n} rows, has ${doc.n}`);
    }
  }
  if (wrong.length > 0) {
    differences.push({
      structure: "documents",
      kind: "wrong row count",
      count: wrong.length,
      examples: wrong.slice(0, examples),
    });
  }
  return differences;
}

/**
 * The service keys that hold a column's value (core rows/service-key-page.ts): every row's `rowId`
 * is its id, its `documentId` its document's id and its `url` its document's url (absent when
 * the document has none). E6 answers `rowId` and `url` from those columns, not from terms
 * (migration 0028), so a row whose metadata said otherwise would be listed wrongly. Rows without their document are
 * `documentRowCounts`' to report.
 */
export async function mirroredMetadata(t: InvariantTarget, s: InvariantScope) {
  const ofDocumentRows = (select: string) => `SELECT r.dataset_id, r.id AS row_id, ${select}
    FROM rows r JOIN documents d ON d.dataset_id = r.dataset_id AND d.id = r.document_id`;
  return compareSets(t, s, {
    structure: "rows (mirrored metadata)",
    key: ["dataset_id", "row_id"],
    values: ["row_key", "document_key", "url_key"],
    maintained: ofDocumentRows(
      "r.metadata -> 'rowId' AS row_key, r.metadata -> 'documentId' AS document_key, r.metadata -> 'url' AS url_key",
    ),
    recomputed: ofDocumentRows(
      "to_jsonb(r.id) AS row_key, to_jsonb(r.document_id) AS document_key, to_jsonb(d.url) AS url_key",
    ),
  });
}

// --- machinery -----------------------------------------------------------------------------

interface SetComparison {
  structure: string;
  /** columns identifying an entry; both queries return them (and `dataset_id`, for scoping) */
  key: string[];
  /** columns compared exactly */
  values: string[];
  maintained: string;
  recomputed: string;
  /**
   * A maintained entry matching this predicate, with nothing recomputed for its key, is a
   * leftover the schema promises to delete (`zero-count left`).
   */
  zero?: string;
}

/**
 * Full join of the maintained and the recomputed set on the key: `missing` (recomputed, not
 * maintained), `unexpected` (maintained, not recomputed), `wrong` (both, values differ),
 * `zero-count left` (maintained at zero, nothing recomputed).
 */
async function compareSets(
  t: InvariantTarget,
  s: InvariantScope,
  c: SetComparison,
): Promise<Difference[]> {
  const examples = s.examples ?? 5;
  const inScope = (alias: string) =>
    `($1::jsonb IS NULL OR ${alias}.dataset_id IS NULL OR ${alias}.dataset_id IN (SELECT jsonb_array_elements_text($1::jsonb)))`;
  const join = c.key.map((k) => `m.${k} = e.${k}`).join(" AND ");
  const keyText = `concat_ws(' ', ${c.key.map((k) => `coalesce(m.${k}, e.${k})::text`).join(", ")})`;
  const values = (alias: string) =>
    c.values.length === 0
      ? "'present'"
      : `concat_ws(', ', ${c.values.map((v) => `'${v}=' || coalesce(${alias}.${v}::text, 'null')`).join(", ")})`;
  const differs =
    c.values.length === 0
      ? "FALSE"
      : `(${c.values.map((v) => `m.${v}`).join(", ")}) IS DISTINCT FROM (${c.values.map((v) => `e.${v}`).join(", ")})`;
  const zero = c.zero
    ? `(${c.zero.replace(/\b(\w+)\b/g, (w) => (isColumn(w, c) ? `m.${w}` : w))})`
    : "FALSE";
  const rows = await t.sql<{ kind: string; count: number | string; examples: string[] | null }>(
    `WITH m AS (SELECT * FROM (${c.maintained}) x WHERE ${inScope("x")}),
     e AS (SELECT * FROM (${c.recomputed}) x WHERE ${inScope("x")}),
     found AS (
       SELECT CASE WHEN m.${c.key[0]} IS NULL THEN 'missing'
                   WHEN e.${c.key[0]} IS NULL AND ${zero} THEN 'zero-count left'
                   WHEN e.${c.key[0]} IS NULL THEN 'unexpected'
                   ELSE 'wrong' END AS kind,
              format('[%s] %s', ${keyText},
                CASE WHEN m.${c.key[0]} IS NULL THEN 'absent, recomputed ' || ${values("e")}
                     WHEN e.${c.key[0]} IS NULL THEN ${values("m")} || ', recomputed: absent'
                     ELSE ${values("m")} || ', recomputed ' || ${values("e")} END) AS detail
       FROM m FULL JOIN e ON ${join}
       WHERE m.${c.key[0]} IS NULL OR e.${c.key[0]} IS NULL OR ${differs}
     )
     SELECT kind, count(*) AS count, (array_agg(detail ORDER BY detail))[1:$2::int] AS examples
     FROM found GROUP BY kind ORDER BY kind`,
    [scopeParameter(s), examples],
  );
  return rows.map((r) => ({
    structure: c.structure,
    kind: r.kind,
    count: Number(r.count),
    examples: r.examples ?? [],
  }));
}

function isColumn(word: string, c: SetComparison): boolean {
  return c.values.includes(word) || c.key.includes(word) || word === "pending";
}

function scopeParameter(s: InvariantScope): string | null {
  return s.datasetIds ? JSON.stringify(s.datasetIds) : null;
}

async function hasTable(t: InvariantTarget, name: string): Promise<boolean> {
  const [row] = await t.sql<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [
    name,
  ]);
  return row?.found === true;
}
