import { createScratchDatabase, type ScratchDatabase } from "@quarry/local-stack";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForIndexBuilds } from "../src/harness/quiet-database.ts";

const SERVER =
  process.env.QUARRY_TEST_ENGINE === "native" ? process.env.QUARRY_TEST_DATABASE_URL : undefined;

/**
 * `waitForIndexBuilds` against a real index build: `CREATE INDEX CONCURRENTLY` waits for every
 * transaction of its database older than its snapshot, so one held open keeps the build
 * running (and listed in `pg_stat_progress_create_index`) for as long as the test wants.
 */
describe.skipIf(!SERVER)("waiting for an earlier run's index builds", () => {
  let scratch: ScratchDatabase;

  beforeAll(async () => {
    scratch = await createScratchDatabase(SERVER as string, "quarry_bench_builds_");
  });

  afterAll(async () => {
    await scratch?.drop();
  });

  async function connected() {
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    return client;
  }

  // (Server-wide: another test file's build may be running too, so no "quiet at once" here.)
  it("waits out a build, and says when one outlasts it", async () => {
    const lines: string[] = [];
    const progress = (line: string) => lines.push(line);
    const holder = await connected();
    const builder = await connected();
    await builder.query("CREATE TABLE t (n int)");
    await holder.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await holder.query("SELECT 1");
    const build = builder.query("CREATE INDEX CONCURRENTLY t_n ON t (n)");
    try {
      // Still held: the wait gives up at its deadline and says the build is running.
      const outlasted = await waitForIndexBuilds(scratch.url, progress, 1_500);
      expect(outlasted.quiet).toBe(false);
      expect(outlasted.waited_s).toBeGreaterThanOrEqual(1.5);
      expect(lines.at(-1)).toMatch(/index builds still running/);

      // Released a second into the next wait: the wait ends with the build.
      setTimeout(() => void holder.query("COMMIT"), 1_000);
      const waited = await waitForIndexBuilds(scratch.url, progress, 30_000);
      expect(waited.quiet).toBe(true);
      expect(waited.waited_s).toBeGreaterThanOrEqual(1);
      await build;
      const [valid] = (
        await builder.query("SELECT indisvalid FROM pg_index WHERE indexrelid = 't_n'::regclass")
      ).rows;
      expect(valid?.indisvalid).toBe(true);
    } finally {
      await holder.end();
      await builder.end();
    }
  });
});
