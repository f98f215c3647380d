import { inject } from "vitest";
import { connectSql, type SqlClient } from "../../../../packages/local-stack/src/sql-client.ts";

/**
 * A fingerprint of what the database stores for some projects: per table of the public
 * schema, the number of rows and an md5 over every column of every row (`t::text`, ordered
 * by that text, so no primary key is needed and row order on disk does not matter). Two
 * equal fingerprints mean the stored data is byte-for-byte the same.
 *
 * Every table is included; none is excluded. The e2e files share one stack and run in
 * parallel, so each table is restricted to the rows of the given projects (the only scoping
 * that is stable while other files write): the rows whose `project_id` is theirs, or whose
 * `dataset_id`, `endpoint_id`, `log_id` or `row_id` points at a record of theirs (so a row
 * another project attached to their log counts too), and their own rows of `projects`. A table
 * with none of these cannot be attributed to a project: the fingerprint refuses it, so a new
 * table is noticed here rather than silently left out. Sequence positions are not stored data
 * (Postgres advances them even in rolled-back transactions), so they are not compared.
 */
export type Fingerprint = Record<string, { rows: number; md5: string }>;

const OWNERS: { column: string; scope: string }[] = [
  { column: "project_id", scope: "t.project_id = ANY($1::text[])" },
  {
    column: "dataset_id",
    scope: "t.dataset_id IN (SELECT id FROM datasets WHERE project_id = ANY($1::text[]))",
  },
  {
    column: "endpoint_id",
    scope: "t.endpoint_id IN (SELECT id FROM endpoints WHERE project_id = ANY($1::text[]))",
  },
  {
    column: "log_id",
    scope: "t.log_id IN (SELECT id FROM logs WHERE project_id = ANY($1::text[]))",
  },
  {
    column: "row_id",
    scope: "t.row_id IN (SELECT id FROM rows WHERE project_id = ANY($1::text[]))",
  },
];

export function databaseUrl(): string {
  const url = inject("databaseUrl");
  if (!url) {
    throw new Error(
      "no database URL: set E2E_DATABASE_URL (the stack's Postgres) with E2E_BASE to check stored data",
    );
  }
  return url;
}

/** Runs `use` on one connection to the stack's database. */
export async function withSql<T>(use: (sql: SqlClient) => Promise<T>): Promise<T> {
  const sql = await connectSql(databaseUrl());
  try {
    return await use(sql);
  } finally {
    await sql.close();
  }
}

export async function fingerprint(projectIds: string[]): Promise<Fingerprint> {
  return withSql(async (sql) => {
    // Partitions (each dataset's graph vectors, `indexed_vectors_<…>`) come and go with
    // every dataset any test creates: their rows are read through their parent.
    const tables = await sql.query<{ table_name: string }>(
      `SELECT c.relname AS table_name FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
         AND NOT c.relispartition
       ORDER BY c.relname`,
    );
    const columns = await sql.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const print: Fingerprint = {};
    for (const { table_name: table } of tables) {
      const own = new Set(columns.filter((c) => c.table_name === table).map((c) => c.column_name));
      // Any link to the projects counts: a row of another project that points at one of
      // their datasets, endpoints or logs (a comment on their log) is theirs to keep too.
      const links = OWNERS.filter((o) => own.has(o.column)).map((o) => o.scope);
      if (table === "projects") links.push("t.id = ANY($1::text[])");
      const scope = links.map((l) => `(${l})`).join(" OR ");
      if (!scope) {
        throw new Error(
          `table ${table} has no project_id, dataset_id, endpoint_id, log_id or row_id: teach database-fingerprint.ts which project owns its rows`,
        );
      }
      const [row] = await sql.query<{ rows: number; md5: string }>(
        `SELECT count(*)::int AS rows,
                coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS md5
         FROM "${table}" t WHERE ${scope}`,
        [projectIds],
      );
      print[table] = row ?? { rows: 0, md5: "" };
    }
    return print;
  });
}

/** The tables whose fingerprint differs, for a readable failure. */
export function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  const tables = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...tables].filter(
    (t) => before[t]?.rows !== after[t]?.rows || before[t]?.md5 !== after[t]?.md5,
  );
}
