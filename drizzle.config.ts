import { defineConfig } from "drizzle-kit";

// Migrations are generated from the schema (one file per table) and committed.
// `pnpm db:generate` writes new ones; `pnpm db:migrate` applies them to DATABASE_URL.
export default defineConfig({
  dialect: "postgresql",
  schema: "./packages/db/src/schema/index.ts",
  out: "./packages/db/migrations",
  dbCredentials: {
    url: process.env.DATABASE_URL ?? "postgres://quarry:quarry@127.0.0.1:5432/postgres",
  },
});
