import pg from "pg";

/**
 * A plain `pg` connection to a stack's database (`Stack.databaseUrl`, the loopback wire
 * protocol server), for Node-side tools and tests that read stored data directly — e.g. the
 * e2e suites that fingerprint a tenant's data before and after. One query at a time.
 */
export interface SqlClient {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function connectSql(databaseUrl: string): Promise<SqlClient> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    query: async <T>(text: string, params: unknown[] = []) =>
      (await client.query(text, params)).rows as T[],
    close: () => client.end(),
  };
}
