import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FreshDatabase, freshDatabase } from "../../core/test/support/database.ts";
import { trackCpu } from "../src/harness/cpu.ts";
import { sampleDatabaseWaits } from "../src/harness/database-waits.ts";
import { BENCH_PROCESS_ROLE } from "../src/harness/process-roles.ts";
import { trackStatements } from "../src/harness/statements.ts";

/**
 * `pnpm bench load` says where a saturated machine's time goes: CPU per process role
 * (`results.cpu`) and the database's statements by time (`results.database_statements`).
 * Both read real counters (/proc, `pg_stat_statements`), so they run against a native server,
 * which the test clusters start with `pg_stat_statements` preloaded.
 */
const NATIVE = process.env.QUARRY_TEST_ENGINE === "native";

describe.skipIf(!NATIVE)("a load run's accounting", () => {
  let fresh: FreshDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    fresh = await freshDatabase("native");
    client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await fresh?.close();
  });

  it("counts the statements run in the window, in this database only", async () => {
    await client.query("SELECT 'before the window' AS marker, 1");
    const statements = trackStatements({ databaseUrl: fresh.url, mode: "started" });
    await statements.start();
    for (let i = 0; i < 7; i++) {
      await client.query("SELECT $1::text AS marker, count(*) FROM generate_series(1, $2::int)", [
        "in the window",
        1000 + i,
      ]);
    }
    const report = await statements.stop();
    if (!report.available) throw new Error(report.reason);
    const marked = report.top.filter((s) => s.query.includes("AS marker"));
    // Normalized: one entry for the seven calls, none for the call before the reset.
    expect(marked).toEqual([
      expect.objectContaining({ calls: 7, rows: 7, query: expect.stringContaining("$1::text") }),
    ]);
    expect(report.calls).toBeGreaterThanOrEqual(7);
    expect(report.total_exec_s).toBeGreaterThanOrEqual(marked[0]?.total_s ?? 0);
    const shares = report.top.reduce((sum, s) => sum + s.share, 0);
    if (report.track === "top") expect(shares).toBeLessThanOrEqual(1.001);
  });

  it("says why statements are missing when the database cannot tell", async () => {
    const statements = trackStatements({
      databaseUrl: "postgres://nobody@127.0.0.1:1/none",
      mode: "started",
    });
    await statements.start();
    const report = await statements.stop();
    expect(report).toEqual({ available: false, reason: expect.stringContaining("pg_stat") });
    expect(await trackStatements({ databaseUrl: undefined, mode: "started" }).stop()).toEqual({
      available: false,
      reason: "no database URL to ask",
    });
  });

  it("leaves the statistics of a database that is not the bench's own alone", async () => {
    await client.query("SELECT 'not reset' AS kept_marker");
    const statements = trackStatements({ databaseUrl: fresh.url, mode: "attached" });
    await statements.start();
    expect(await statements.stop()).toEqual({
      available: false,
      reason: expect.stringContaining("BASE"),
    });
    const { rows } = await client.query<{ calls: string }>(
      "SELECT calls FROM pg_stat_statements WHERE query LIKE '%kept_marker%' AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    expect(rows.map((r) => Number(r.calls))).toEqual([1]);
  });

  it("charges this process's CPU to the bench and a backend's to the database", async () => {
    const cpu = trackCpu();
    await cpu.start();
    const spinUntil = Date.now() + 400;
    let spins = 0;
    while (Date.now() < spinUntil) spins++;
    // A backend's work: ~0.3 s of CPU on this machine, well above /proc's 10 ms tick.
    await client.query("SELECT count(*) FROM generate_series(1, 5000000)");
    const report = await cpu.stop();
    expect(spins).toBeGreaterThan(0);
    const role = (name: string) => report.roles.find((r) => r.role === name);
    expect(role(BENCH_PROCESS_ROLE)?.cpu_s).toBeGreaterThanOrEqual(0.2);
    const database = report.roles.find((r) => r.role.startsWith("database server"));
    expect(database?.cpu_s).toBeGreaterThanOrEqual(0.1);
    expect(report.machine.busy_cores).toBeGreaterThan(0);
    expect(report.window_s).toBeGreaterThanOrEqual(0.4);
  });

  it("tells a backend waiting on a lock from one running", async () => {
    await client.query("CREATE TABLE wait_probe (id int PRIMARY KEY, n int)");
    await client.query("INSERT INTO wait_probe VALUES (1, 0)");
    const holder = new pg.Client({ connectionString: fresh.url });
    const waiter = new pg.Client({ connectionString: fresh.url });
    await holder.connect();
    await waiter.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("UPDATE wait_probe SET n = n + 1 WHERE id = 1");
      const waits = sampleDatabaseWaits({ databaseUrl: fresh.url }, 20);
      await waits.start();
      // Blocked behind the holder's row lock until it commits; beside it, a backend at work.
      const blocked = waiter.query("UPDATE wait_probe SET n = n + 10 WHERE id = 1 /* blocked */");
      await client.query("SELECT count(*) FROM generate_series(1, 3000000) /* working */");
      await holder.query("COMMIT");
      await blocked;
      const report = await waits.stop();
      if (!report.available) throw new Error(report.reason);
      const state = (wait: string) => report.waits.find((w) => w.wait === wait);
      const locked = report.waits.find((w) => w.wait.startsWith("Lock:"));
      expect(locked?.statements[0]?.query).toContain("/* blocked */");
      expect(
        state("running")
          ?.statements.map((s) => s.query)
          .join(" "),
      ).toContain("/* working */");
      expect(report.lock_share).toBeGreaterThan(0);
      expect(report.lock_share).toBeLessThan(1);
      expect(report.samples).toBeGreaterThanOrEqual(2);
      const { rows } = await client.query<{ n: number }>("SELECT n FROM wait_probe");
      expect(rows).toEqual([{ n: 11 }]);
    } finally {
      await holder.end();
      await waiter.end();
    }
  });

  it("says why waits are missing where no backend can wait", async () => {
    const pglite = sampleDatabaseWaits({
      databaseUrl: "postgres://127.0.0.1:1/pglite",
      sessionProfile: {} as never,
    });
    await pglite.start();
    expect(await pglite.stop()).toEqual({
      available: false,
      reason: expect.stringContaining("one statement at a time"),
    });
    const unreachable = sampleDatabaseWaits({ databaseUrl: "postgres://nobody@127.0.0.1:1/none" });
    await unreachable.start();
    expect(await unreachable.stop()).toEqual({
      available: false,
      reason: expect.stringContaining("pg_stat_activity"),
    });
  });
});
