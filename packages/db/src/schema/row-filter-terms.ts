import { bigint, pgTable, primaryKey, uuid } from "drizzle-orm/pg-core";

/**
 * The equality terms of every row's metadata, in id order: one entry per (dataset, key,
 * value) a row has — a scalar value, or each string of a list — so the rows matching
 * `{key: value}` are one range of the primary key, already in insertion order. E6 reads a
 * page of such a filter from the first entries of that range (index only), where the GIN
 * index of `row_filter_metadata` would give every match unordered, each to be rechecked.
 *
 * `term_key` is `quarry_filter_term_key(dataset_id, key, value)` (the `row_filter_metadata`
 * migration): the md5 of the term as a uuid, numbers in canonical form so that 7 and 7.0 are
 * one term, as they are one value to `@>`. Fixed-width keys keep the index small and any value
 * indexable; 128 bits make a collision as unlikely as one of our random ids, and E6 checks the
 * rows of every such page against the filter itself all the same. Kept by the same triggers
 * on `rows` as that copy (packages/db/README.md).
 */
export const rowFilterTerms = pgTable(
  "row_filter_terms",
  {
    termKey: uuid("term_key").notNull(),
    rowId: bigint("row_id", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.termKey, t.rowId] })],
);
