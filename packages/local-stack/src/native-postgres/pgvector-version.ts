import pg from "pg";

/**
 * The pgvector version a database offers: the installed extension's version, else the version
 * `CREATE EXTENSION vector` would install; null when the server has no pgvector at all.
 * Rejects when the database cannot be reached.
 */
export async function pgvectorVersion(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ installed: string | null; available: string | null }>(
      `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed,
              (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available`,
    );
    return rows[0]?.installed ?? rows[0]?.available ?? null;
  } finally {
    await client.end();
  }
}
