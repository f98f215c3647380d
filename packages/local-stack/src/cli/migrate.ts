import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { migrationsFolder } from "../embedded-database.ts";

/**
 * `pnpm db:migrate`: applies the committed migrations to DATABASE_URL (Neon in production:
 * use its direct, non-pooled connection string with `sslmode=require`). Idempotent.
 */
const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is required");
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  await migrate(drizzle({ client }), { migrationsFolder: migrationsFolder() });
  console.log("migrations applied");
} finally {
  await client.end();
}
