import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { datasets } from "./datasets.ts";

/**
 * Keyword (BM25) statistics of a dataset, kept by triggers on `rows` in the same statement as
 * every row write (see the `search_triggers` migration), so they are always exactly those of
 * the stored rows. Terms are the lexemes of `rows.fts`. Two units are ranked:
 * rows (hybrid search, E2) and documents (E3), whose text is the sum of their rows' text — a
 * document of any length is ranked without ever building a tsvector of the whole document.
 *
 * Only `keyword_datasets` has a foreign key: a row per dataset, created with the dataset. The
 * per-term tables are cleaned up by a trigger when it goes, because a foreign key check per
 * posting would double the cost of writing rows. Triggers and functions: packages/db/README.md.
 */
export const keywordDatasets = pgTable("keyword_datasets", {
  datasetId: text("dataset_id")
    .primaryKey()
    .references(() => datasets.id, { onDelete: "cascade" }),
  /** rows with at least one term: N of the row-level idf */
  rowCount: bigint("row_count", { mode: "number" }).notNull().default(0),
  /** documents with at least one term: N of the document-level idf */
  documentCount: bigint("document_count", { mode: "number" }).notNull().default(0),
  /** terms (tokens) in all rows; over row_count or document_count it is the average length */
  totalLength: bigint("total_length", { mode: "number" }).notNull().default(0),
});

/**
 * Per term: in how many rows and in how many documents of the dataset it occurs, as of the
 * last fold. Writers never update it: the current figure is this plus the term's rows in
 * `keyword_term_deltas` (see below).
 */
export const keywordTerms = pgTable(
  "keyword_terms",
  {
    datasetId: text("dataset_id").notNull(),
    term: text("term").notNull(),
    rowFrequency: integer("row_frequency").notNull(),
    documentFrequency: integer("document_frequency").notNull(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.term] })],
);

/** Per document: its rows and its length in terms. */
export const keywordDocuments = pgTable(
  "keyword_documents",
  {
    datasetId: text("dataset_id").notNull(),
    documentId: text("document_id").notNull(),
    rowCount: integer("row_count").notNull(),
    length: bigint("length", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.documentId] }),
    index("keyword_documents_empty_idx").on(t.datasetId).where(sql`${t.rowCount} <= 0`),
  ],
);

/**
 * The document-level inverted index: per (term, document) the term's frequency in the
 * document's rows and how many of its rows contain it. A posting whose rows all went is
 * deleted by the statement that removed them (migration 0010).
 *
 * The primary key's index also carries `frequency` (`INCLUDE`, migration 0016; drizzle cannot
 * declare it), so E3 reads a term's postings by an index-only scan instead of visiting one
 * heap page per document.
 */
export const keywordPostings = pgTable(
  "keyword_postings",
  {
    datasetId: text("dataset_id").notNull(),
    term: text("term").notNull(),
    documentId: text("document_id").notNull(),
    rowCount: integer("row_count").notNull(),
    frequency: integer("frequency").notNull(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.term, t.documentId] })],
);

/**
 * Changes to `keyword_terms` that writers append instead of updating it in place. Every writer
 * of a dataset touches the same common terms, so in-place upserts made concurrent writers of
 * one dataset wait for each other and deadlock (their multi-statement transactions lock
 * terms in different orders). Appending takes no row lock; readers add a term's deltas to
 * its base row, and `quarry_fold_keyword_deltas` folds them in later (packages/db/CONCURRENCY.md).
 */
export const keywordTermDeltas = pgTable(
  "keyword_term_deltas",
  {
    datasetId: text("dataset_id").notNull(),
    term: text("term").notNull(),
    rowFrequency: integer("row_frequency").notNull(),
    documentFrequency: integer("document_frequency").notNull(),
  },
  (t) => [index("keyword_term_deltas_term_idx").on(t.datasetId, t.term)],
);

/** Changes to `keyword_datasets`, appended by writers and folded later, as for terms. */
export const keywordDatasetDeltas = pgTable(
  "keyword_dataset_deltas",
  {
    datasetId: text("dataset_id").notNull(),
    rowCount: bigint("row_count", { mode: "number" }).notNull(),
    documentCount: bigint("document_count", { mode: "number" }).notNull(),
    totalLength: bigint("total_length", { mode: "number" }).notNull(),
  },
  (t) => [index("keyword_dataset_deltas_dataset_idx").on(t.datasetId)],
);
