/**
 * One row of every column type the app stores, shared by the tests of both SQL-over-HTTP
 * servers (PGlite's and the native proxy's): each must return it as Postgres prints it, for
 * the Neon driver to parse.
 */
export const ITEMS_TABLE = `
  CREATE TABLE items (
    id serial PRIMARY KEY, label text NOT NULL UNIQUE, tags text[], meta jsonb,
    embedding vector(3), seen timestamptz, score float8, big bigint
  );
`;

export const INSERT_EVERY_TYPE =
  "INSERT INTO items (label, tags, meta, embedding, seen, score, big) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *";

export const EVERY_TYPE_PARAMS = [
  "a'b",
  ["x", "y z"],
  JSON.stringify({ k: [1, "two"] }),
  "[1,2,3]",
  new Date("2026-01-02T03:04:05.678Z"),
  0.5,
  "9007199254740993",
];

/** The row as the driver parses it back: the first row of the table. */
export const EVERY_TYPE_ROW = {
  id: 1,
  label: "a'b",
  tags: ["x", "y z"],
  meta: { k: [1, "two"] },
  embedding: "[1,2,3]",
  seen: new Date("2026-01-02T03:04:05.678Z"),
  score: 0.5,
  big: "9007199254740993",
};

/** The driver's error for a second row with a label already in the table (its UNIQUE key). */
export const DUPLICATE_LABEL_ERROR = {
  name: "NeonDbError",
  code: "23505",
  constraint: "items_label_key",
  table: "items",
};
