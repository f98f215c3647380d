import { customType } from "drizzle-orm/pg-core";

/**
 * A pgvector column without a fixed dimension. Datasets choose their embedding model (and so
 * their dimensions) independently, so one column serves all of them; each dataset's HNSW
 * index casts it to the dataset's dimension (docs/indexing.md#vector-search).
 */
export const vector = customType<{ data: number[]; driverData: string }>({
  dataType: () => "vector",
  toDriver: (value) => `[${value.join(",")}]`,
  fromDriver: (value) => JSON.parse(value) as number[],
});

/** Postgres full-text vector; written with `to_tsvector(...)` in SQL, never read back as such. */
export const tsvector = customType<{ data: string }>({
  dataType: () => "tsvector",
});
