import { pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";
import { datasets } from "./datasets.ts";
import { vector } from "./types.ts";

/**
 * The embedded queries of a dataset's recent searches, a few dozen per dataset: what its
 * `ef_search` is measured on once there are enough of them (core
 * `search/query-samples.ts`, `calibrateEfSearch`). The recall a candidate list size gives
 * depends on the queries as much as on the graph, and no stand-in (phrases of stored texts,
 * synthetic vectors) matches the queries a dataset actually gets.
 *
 * A ring of `slot`s: a new sample overwrites a slot picked at random, so the table stays small
 * and holds mostly recent queries. Written after the search has answered (never in its way),
 * at most a few times a second per dataset; deleted with the dataset.
 */
export const searchQuerySamples = pgTable(
  "search_query_samples",
  {
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    slot: smallint("slot").notNull(),
    embedding: vector("embedding").notNull(),
    sampledAt: timestamp("sampled_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.slot] })],
);
