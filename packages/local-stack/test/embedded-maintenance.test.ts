import { setTimeout as sleep } from "node:timers/promises";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Maintenance, startEmbeddedMaintenance } from "../src/embedded-maintenance.ts";
import { type PgServer, startPgServer } from "../src/pg-server/index.ts";

let db: PGlite;
let server: PgServer;
let maintenance: Maintenance | undefined;

beforeAll(async () => {
  db = new PGlite();
  server = await startPgServer(db);
});

afterAll(async () => {
  await server?.close();
  await db?.close();
});

beforeEach(async () => {
  await db.exec(`
    DROP TABLE IF EXISTS items;
    CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL);
    INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 3000) g;
    UPDATE items SET label = label || '!' WHERE id <= 1500;
  `);
});

afterEach(async () => {
  await maintenance?.stop();
  maintenance = undefined;
});

interface TableState {
  reltuples: number;
  dead: number;
  analyzed: boolean;
  vacuumed: boolean;
}

async function itemsState(): Promise<TableState> {
  // Cumulative statistics are flushed lazily; force them so the numbers are current.
  await db.query("SELECT pg_stat_force_next_flush()");
  const { rows } = await db.query<TableState>(`
    SELECT c.reltuples::float8 AS reltuples, s.n_dead_tup::int AS dead,
           s.last_analyze IS NOT NULL AS analyzed, s.last_vacuum IS NOT NULL AS vacuumed
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = 'items'`);
  return rows[0] as TableState;
}

/** A client of the local server, as a worker's connection would be. */
async function connectClient(): Promise<pg.Client> {
  const client = new pg.Client({
    host: server.host,
    port: server.pgPort,
    user: "quarry",
    database: "postgres",
  });
  await client.connect();
  return client;
}

/** Never idle: a client's query every few milliseconds, as a loaded stack sees. */
async function startSteadyTraffic(): Promise<{ stop(): Promise<void> }> {
  const client = await connectClient();
  let busy = true;
  const running = (async () => {
    while (busy) {
      await client.query("SELECT count(*) FROM items");
      await sleep(2);
    }
  })();
  return {
    async stop() {
      busy = false;
      await running;
      await client.end();
    },
  };
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(25);
  }
}

describe("embedded maintenance (autovacuum for PGlite)", () => {
  it("analyzes and vacuums a table that needs it, and then has nothing left to do", async () => {
    const before = await itemsState();
    expect(before).toMatchObject({ analyzed: false, vacuumed: false });
    expect(before.dead).toBeGreaterThanOrEqual(1500);

    maintenance = startEmbeddedMaintenance(db, { idleMs: 60_000 });
    const ran = await maintenance.runDue();
    expect(ran).toContain("VACUUM (ANALYZE) items");

    const after = await itemsState();
    expect(after).toMatchObject({ analyzed: true, vacuumed: true, dead: 0, reltuples: 3000 });
    expect(await maintenance.runDue()).not.toContain("VACUUM (ANALYZE) items");
  });

  it("maintains a partitioned table's partitions, and never the parent itself", async () => {
    await db.exec(`
      DROP TABLE IF EXISTS parts;
      CREATE TABLE parts (kind text NOT NULL, n int NOT NULL) PARTITION BY LIST (kind);
      CREATE TABLE parts_a PARTITION OF parts FOR VALUES IN ('a');
      INSERT INTO parts SELECT 'a', g FROM generate_series(1, 500) g;
    `);
    try {
      maintenance = startEmbeddedMaintenance(db, { idleMs: 60_000 });
      const ran = await maintenance.runDue();
      expect(ran).toContain("ANALYZE parts_a");
      expect(ran.filter((statement) => / parts$/.test(statement))).toEqual([]);
      const again = await maintenance.runDue();
      expect(again.filter((statement) => /parts/.test(statement))).toEqual([]);
    } finally {
      await db.exec("DROP TABLE parts");
    }
  });

  it("runs by itself once the database has been idle", async () => {
    maintenance = startEmbeddedMaintenance(db, { idleMs: 100, pollMs: 20 });
    await until(async () => (await itemsState()).vacuumed);
    expect((await itemsState()).dead).toBe(0);
  });

  it("under steady traffic still maintains small tables, and only those", async () => {
    const traffic = await startSteadyTraffic();
    try {
      const bytes = Number(
        (await db.query<{ b: number }>("SELECT pg_total_relation_size('items')::float8 AS b"))
          .rows[0]?.b,
      );
      maintenance = startEmbeddedMaintenance(db, {
        idleMs: 60_000,
        pollMs: 10,
        busyEveryMs: 50,
        busyMaxBytes: bytes - 1,
      });
      await sleep(600);
      expect(await itemsState()).toMatchObject({ vacuumed: false });
      await maintenance.stop();

      maintenance = startEmbeddedMaintenance(db, {
        idleMs: 60_000,
        pollMs: 10,
        busyEveryMs: 50,
        busyMaxBytes: bytes,
      });
      await until(async () => (await itemsState()).vacuumed);
      expect((await itemsState()).dead).toBe(0);
    } finally {
      await traffic.stop();
    }
  });

  it("under steady traffic corrects statistics that call a grown table empty", async () => {
    // A queue emptied, vacuumed with its page kept (as the vector indexer's vacuum does), then
    // filled by a bulk load: recorded as no rows on one page, planned as one row.
    await db.exec(`
      DROP TABLE IF EXISTS queue;
      CREATE TABLE queue (id int PRIMARY KEY, payload text NOT NULL);
      INSERT INTO queue SELECT g, 'x' FROM generate_series(1, 10) g;
      DELETE FROM queue;
    `);
    await db.exec("VACUUM (TRUNCATE false) queue");
    await db.exec("INSERT INTO queue SELECT g, repeat('x', 100) FROM generate_series(1, 3000) g");
    const estimate = async () => {
      const { rows } = await db.query<{ "QUERY PLAN": string }>("EXPLAIN SELECT * FROM queue");
      return Number(/rows=(\d+)/.exec(rows[0]!["QUERY PLAN"])?.[1]);
    };
    expect(await estimate()).toBe(1);
    const traffic = await startSteadyTraffic();
    try {
      const lines: string[] = [];
      maintenance = startEmbeddedMaintenance(db, {
        idleMs: 60_000,
        pollMs: 10,
        busyEveryMs: 50,
        // Too small to vacuum anything: the analysis is what corrects it.
        busyMaxBytes: 0,
        log: (line) => lines.push(line),
      });
      await until(async () => lines.some((line) => line.includes("ANALYZE queue")));
      expect(await estimate()).toBe(3000);
      // Only that: the other tables' statistics wait for idleness.
      expect(lines.every((line) => line.includes("ANALYZE queue"))).toBe(true);
    } finally {
      await traffic.stop();
      await db.exec("DROP TABLE queue");
    }
  });

  it("never takes the session from a client: it waits while a transaction is open", async () => {
    const client = await connectClient();
    try {
      await client.query("BEGIN");
      await client.query("UPDATE items SET label = 'held' WHERE id = 1");
      maintenance = startEmbeddedMaintenance(db, { idleMs: 50, pollMs: 10 });
      // Even when asked to run now, maintenance waits for the client's transaction to end.
      let finished = false;
      const ran = maintenance.runDue().finally(() => {
        finished = true;
      });
      await sleep(400);
      expect(finished).toBe(false);
      const inside = await client.query<{ analyzed: boolean }>(
        "SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'items'",
      );
      expect(inside.rows[0]?.analyzed).toBe(false);
      await client.query("COMMIT");
      expect(await ran).toContain("VACUUM (ANALYZE) items");
    } finally {
      await client.end();
    }
    expect(await itemsState()).toMatchObject({ analyzed: true, vacuumed: true });
    const label = await db.query<{ label: string }>("SELECT label FROM items WHERE id = 1");
    expect(label.rows[0]?.label).toBe("held");
  });
});
