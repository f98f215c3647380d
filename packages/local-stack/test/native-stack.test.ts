import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext, TLSSocket } from "node:tls";
import {
  type PoolClient as NeonClient,
  Pool as NeonPool,
  neon,
  neonConfig,
} from "@neondatabase/serverless";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type NativeProxy, startNativeProxy } from "../src/native-proxy/index.ts";
import { MessageBoundaries } from "../src/native-proxy/message-boundaries.ts";
import {
  compareVersions,
  createScratchDatabase,
  maskDatabaseUrl,
  pgvectorProblem,
  type ScratchDatabase,
} from "../src/native-proxy/native-database.ts";
import { SESSION_RESET_SQL } from "../src/native-proxy/session-pool.ts";
import { backendMessage, backendMessages } from "../src/pg-server/protocol.ts";
import { ReplyTracker } from "../src/pg-server/reply-tracker.ts";
import { type Stack, startStack } from "../src/stack.ts";
import {
  DUPLICATE_LABEL_ERROR,
  EVERY_TYPE_PARAMS,
  EVERY_TYPE_ROW,
  INSERT_EVERY_TYPE,
  ITEMS_TABLE,
} from "./support/every-type-row.ts";

/**
 * The native engine (docs/architecture.md#two-engines): the version check that refuses a server
 * without pgvector >= 0.8, the Neon-style proxy read by the real driver, and a whole stack on a
 * native PostgreSQL. The parts that need a server run when QUARRY_TEST_DATABASE_URL names one
 * (pgvector >= 0.8, a role that may CREATE DATABASE); each makes its own fresh database there.
 */
const SERVER = process.env.QUARRY_TEST_DATABASE_URL || undefined;
const PREFIX = process.env.QUARRY_TEST_DATABASE_PREFIX || "quarry_";

describe("the pgvector check", () => {
  const url = "postgres://me:secret@db.example:5432/app";

  it("compares versions part by part, numerically", () => {
    expect(compareVersions("0.8.0", "0.8.0")).toBe(0);
    expect(compareVersions("0.8", "0.8.0")).toBe(0);
    expect(compareVersions("0.10.0", "0.8.1")).toBeGreaterThan(0);
    expect(compareVersions("0.7.4", "0.8.0")).toBeLessThan(0);
    expect(compareVersions("1.0.0", "0.8.7")).toBeGreaterThan(0);
  });

  it("accepts pgvector >= 0.8, installed or to be created", () => {
    expect(pgvectorProblem(url, { available: "0.8.0", installed: null })).toBeUndefined();
    expect(pgvectorProblem(url, { available: "0.8.1", installed: "0.8.0" })).toBeUndefined();
    expect(pgvectorProblem(url, { available: "0.7.0", installed: "0.8.0" })).toBeUndefined();
  });

  it("refuses a server without pgvector, or with an older one, saying how to get one and never the password", () => {
    const none = pgvectorProblem(url, { available: null, installed: null });
    expect(none).toMatch(/has no pgvector extension; Quarry needs pgvector >= 0\.8\.0/);
    const old = pgvectorProblem(url, { available: "0.7.4", installed: null });
    expect(old).toMatch(/offers pgvector 0\.7\.4/);
    for (const message of [none, old]) {
      expect(message).toContain("pnpm db:native");
      expect(message).toContain(
        "docker run -d -p 5432:5432 -e POSTGRES_PASSWORD=postgres pgvector/pgvector:pg17",
      );
      expect(message).toContain("Neon");
      expect(message).toContain("postgres://me:***@db.example:5432/app");
      expect(message).not.toContain("secret");
    }
    expect(pgvectorProblem(url, { available: "0.8.0", installed: "0.7.0" })).toMatch(
      /has pgvector 0\.7\.0.*ALTER EXTENSION vector UPDATE.*the server has 0\.8\.0/,
    );
  });

  it("masks only the password of a printed connection string", () => {
    expect(maskDatabaseUrl("postgres://u:p%40ss@h:1/d?sslmode=require")).toBe(
      "postgres://u:***@h:1/d?sslmode=require",
    );
    expect(maskDatabaseUrl("postgres://u@h/d")).toBe("postgres://u@h/d");
  });
});

describe("message boundaries (what the proxy's faults count)", () => {
  it("finds the startup message and typed messages across arbitrary splits", () => {
    const startup = Buffer.alloc(12);
    startup.writeInt32BE(12, 0);
    startup.writeInt32BE(3 << 16, 4);
    const query = Buffer.concat([Buffer.from("Q"), int32(4 + 9), Buffer.from("SELECT 1\0")]);
    const sync = Buffer.concat([Buffer.from("S"), int32(4)]);
    const stream = Buffer.concat([startup, query, sync]);
    const whole = new MessageBoundaries().messages(stream).map((m) => m.end);
    expect(whole).toEqual([12, 12 + query.length, stream.length]);
    for (let split = 1; split < stream.length; split++) {
      const counter = new MessageBoundaries();
      const first = counter.messages(stream.subarray(0, split)).map((m) => m.end);
      const second = counter.messages(stream.subarray(split)).map((m) => m.end + split);
      expect([...first, ...second], `split at ${split}`).toEqual(whole);
    }
  });

  it("names each message's type, so that the proxy knows requests and a Terminate", () => {
    const startup = Buffer.concat([int32(8), int32(3 << 16)]);
    const query = Buffer.concat([Buffer.from("Q"), int32(4 + 9), Buffer.from("SELECT 1\0")]);
    const terminate = Buffer.concat([Buffer.from("X"), int32(4)]);
    const counter = new MessageBoundaries();
    expect(counter.messages(Buffer.concat([startup, query, terminate.subarray(0, 2)]))).toEqual([
      { end: 8, type: 0 },
      { end: 8 + query.length, type: 0x51 },
    ]);
    expect(counter.atBoundary).toBe(false);
    expect(counter.messages(terminate.subarray(2))).toEqual([{ end: 3, type: 0x58 }]);
    expect(counter.atBoundary).toBe(true);
  });

  it("follows a server's replies across arbitrary splits: handshake, ReadyForQuery, errors", () => {
    const message = (type: string, body: Buffer) =>
      Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
    const handshake = [
      message("R", int32(0)),
      message("S", Buffer.from("server_version\u000015.8\u0000")),
      message("K", Buffer.concat([int32(42), int32(7)])),
    ];
    const stream = Buffer.concat([
      ...handshake,
      message("Z", Buffer.from("I")),
      message("D", Buffer.alloc(300, 1)),
      message("E", Buffer.from("SERROR\u0000\u0000")),
      message("Z", Buffer.from("E")),
      message("C", Buffer.from("ROLLBACK\u0000")),
      message("Z", Buffer.from("I")),
    ]);
    for (let split = 1; split < stream.length; split += 7) {
      const reader = new ReplyTracker();
      reader.feed(stream.subarray(0, split));
      reader.feed(stream.subarray(split));
      expect(reader.readyCount, `split at ${split}`).toBe(3);
      expect(String.fromCharCode(reader.readyStatus ?? 0)).toBe("I");
      expect(reader.errorCount).toBe(1);
    }
    // The handshake a reused session replays is read back from its bytes, message by message.
    const kept = backendMessages(Buffer.concat(handshake)).map((m) =>
      backendMessage(m.type, m.body),
    );
    expect(Buffer.concat(kept).equals(Buffer.concat(handshake))).toBe(true);
    const partial = new ReplyTracker();
    partial.feed(stream.subarray(0, stream.length - 2));
    expect(partial.readyCount).toBe(2);
    expect(partial.readyStatus).toBeUndefined();
  });

  it("stops counting a stream it cannot follow (TLS after an SSLRequest)", () => {
    const counter = new MessageBoundaries();
    const ssl = Buffer.concat([int32(8), int32(80877103)]);
    expect(counter.messages(ssl)).toEqual([{ end: 8, type: 0 }]);
    const tls = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01]);
    expect(counter.messages(tls)).toEqual([]);
    expect(counter.messages(Buffer.concat([Buffer.from("S"), int32(4)]))).toEqual([]);
  });
});

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

describe.skipIf(!SERVER)(
  "the native proxy, read by the Neon driver (needs QUARRY_TEST_DATABASE_URL)",
  () => {
    let database: ScratchDatabase;
    let proxy: NativeProxy;
    let direct: pg.Client;

    beforeAll(async () => {
      database = await createScratchDatabase(SERVER!, `${PREFIX}proxy_`);
      direct = new pg.Client({ connectionString: database.url });
      await direct.connect();
      await direct.query(`CREATE EXTENSION vector; ${ITEMS_TABLE}`);
      proxy = await startNativeProxy({ databaseUrl: database.url });
      pointNeonAt(proxy);
    });

    afterAll(async () => {
      await proxy?.close();
      await direct?.end();
      await database?.drop();
    });

    it("runs a statement over HTTP with every type as Postgres prints it, parsed by the driver", async () => {
      const sql = neon(database.url);
      const inserted = await sql.query(INSERT_EVERY_TYPE, EVERY_TYPE_PARAMS);
      expect(inserted).toEqual([EVERY_TYPE_ROW]);
      const full = neon(database.url, { fullResults: true, arrayMode: true });
      const updated = await full.query("UPDATE items SET score = 1 WHERE label <> $1", ["zz"]);
      expect(updated).toMatchObject({ command: "UPDATE", rowCount: 1 });
      expect(await sql.query("SELECT NULL::text AS t, $1::int AS n", [null])).toEqual([
        { t: null, n: null },
      ]);
    });

    it("turns a statement error into a NeonDbError with Postgres's fields; refuses BEGIN and two statements", async () => {
      const sql = neon(database.url);
      const failed = await sql.query("INSERT INTO items (label) VALUES ('a''b')").catch((e) => e);
      expect(failed).toMatchObject(DUPLICATE_LABEL_ERROR);
      await expect(sql.query("BEGIN")).rejects.toThrow(/transaction control/);
      await expect(sql.query("SELECT 1; SELECT 2")).rejects.toMatchObject({ code: "42601" });
      // The connection BEGIN left in a transaction was closed, not handed to the next statement.
      for (let i = 0; i < 25; i++) {
        await sql.query("INSERT INTO items (label) VALUES ($1)", [`after-begin-${i}`]);
      }
      const { rows } = await direct.query(
        "SELECT count(*)::int AS n FROM items WHERE label LIKE 'after-begin-%'",
      );
      expect(rows).toEqual([{ n: 25 }]);
    });

    it("cancels a statement over HTTP whose caller left, and serves the next one on its connection", async () => {
      const marker = "left-by-its-caller";
      const running = async () => {
        const { rows } = await direct.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
          [`%${marker}%`],
        );
        return rows[0].n as number;
      };
      const caller = new AbortController();
      const abandoned = fetch(`http://${proxy.host}:${proxy.wsPort}/sql`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ query: `SELECT pg_sleep(60) /* ${marker} */`, params: [] }),
        signal: caller.signal,
      });
      await expect.poll(running, { timeout: 10_000 }).toBe(1);
      caller.abort();
      await expect(abandoned).rejects.toThrow();
      // Not a minute later: the server stops it as soon as the caller is gone.
      await expect.poll(running, { timeout: 10_000 }).toBe(0);
      const sql = neon(database.url);
      const after = await Promise.all(
        Array.from({ length: 25 }, (_, i) => sql.query("SELECT $1::int AS i", [i])),
      );
      expect(after.map((rows) => rows[0]?.i)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    });

    it("pipes transactions over WebSocket to the server, concurrently (no turns, unlike PGlite)", async () => {
      const pool = new NeonPool({ connectionString: database.url, max: 2 });
      const a = await pool.connect();
      const b = await pool.connect();
      expect(proxy.connectionCount()).toBe(2);
      await a.query("BEGIN");
      await a.query("INSERT INTO items (label) VALUES ('tx-a')");
      // b is not blocked by a's open transaction, and does not see its write yet.
      const seen = await b.query("SELECT count(*)::int AS n FROM items WHERE label = 'tx-a'");
      expect(seen.rows).toEqual([{ n: 0 }]);
      await a.query("COMMIT");
      const after = await b.query("SELECT count(*)::int AS n FROM items WHERE label = 'tx-a'");
      expect(after.rows).toEqual([{ n: 1 }]);
      a.release();
      b.release();
      await pool.end();
    });

    /**
     * One client at a time through the proxy's WebSocket, as a Worker's request opens and ends
     * its own; an `application_name` of the test's own makes a startup message that no other
     * test's sessions share.
     */
    const connectionStringFor = (applicationName: string) => {
      const url = new URL(database.url);
      url.searchParams.set("application_name", applicationName);
      return url.toString();
    };
    const sessionsOn =
      (connectionString: string) =>
      async <T>(work: (client: NeonClient) => Promise<T>): Promise<T> => {
        const pool = new NeonPool({ connectionString, max: 1 });
        const client = await pool.connect();
        try {
          return await work(client);
        } finally {
          client.release();
          await pool.end();
        }
      };
    const backendPid = async (client: NeonClient) =>
      (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
    // A session is back in the pool once the server has run its reset (it shows as idle after
    // it) and the proxy has read the reply (no reset in flight).
    const backInPool = async (pid: number | undefined) => {
      const reset = async () =>
        (
          await direct.query(
            "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'idle' AND query = $2",
            [pid, SESSION_RESET_SQL],
          )
        ).rowCount === 1;
      for (let i = 0; i < 200 && !(await reset()); i++) await sleep(10);
      for (let i = 0; i < 200 && proxy.sessionStats().resetting > 0; i++) await sleep(10);
      expect(await reset()).toBe(true);
      expect(proxy.sessionStats().resetting).toBe(0);
    };

    it("hands a session its client left idle to the next client, reset, and never one left mid-transaction", async () => {
      const connectionString = connectionStringFor("pool_test");
      const session = sessionsOn(connectionString);
      // Session state of every kind a client can leave behind.
      const first = await session(async (client) => {
        await client.query("SET statement_timeout = 4321");
        await client.query("CREATE TEMP TABLE left_behind (n int)");
        await client.query("PREPARE left_plan AS SELECT 1");
        await client.query("SELECT pg_advisory_lock(4242)");
        await client.query("LISTEN left_channel");
        await client.query("BEGIN");
        await client.query("INSERT INTO items (label) VALUES ('pooled-commit')");
        await client.query("COMMIT");
        return backendPid(client);
      });
      await backInPool(first);
      const reusedBefore = proxy.sessionStats().reused;
      const second = await session(async (client) => ({
        pid: await backendPid(client),
        timeout: (await client.query("SHOW statement_timeout")).rows[0]?.statement_timeout,
        temp: (await client.query("SELECT to_regclass('pg_temp.left_behind') AS t")).rows[0]?.t,
        prepared: (await client.query("SELECT count(*)::int AS n FROM pg_prepared_statements"))
          .rows[0]?.n,
        listening: (await client.query("SELECT count(*)::int AS n FROM pg_listening_channels()"))
          .rows[0]?.n,
      }));
      expect(second).toEqual({ pid: first, timeout: "0", temp: null, prepared: 0, listening: 0 });
      expect(proxy.sessionStats().reused).toBe(reusedBefore + 1);
      // The advisory lock went with the reset: another backend takes it at once.
      const { rows: lock } = await direct.query("SELECT pg_try_advisory_lock(4242) AS got");
      expect(lock).toEqual([{ got: true }]);
      await direct.query("SELECT pg_advisory_unlock(4242)");

      // A client that leaves a transaction open: its session is closed (rolled back), not
      // handed on.
      const pool = new NeonPool({ connectionString, max: 1 });
      const client = await pool.connect();
      const abandoned = await backendPid(client);
      await client.query("BEGIN");
      await client.query("INSERT INTO items (label) VALUES ('pooled-abandoned')");
      client.release();
      await pool.end();
      const next = await session(backendPid);
      expect(next).not.toBe(abandoned);
      const { rows } = await direct.query(
        "SELECT label FROM items WHERE label LIKE 'pooled-%' ORDER BY label",
      );
      expect(rows).toEqual([{ label: "pooled-commit" }]);
      for (let i = 0; i < 100; i++) {
        const gone = await direct.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [
          abandoned,
        ]);
        if (gone.rowCount === 0) break;
        await sleep(10);
      }
      const { rowCount } = await direct.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [
        abandoned,
      ]);
      expect(rowCount).toBe(0);
    });

    it("keeps a backend's cached plans for the next client, as PgBouncer's transaction mode does", async () => {
      const session = sessionsOn(connectionStringFor("plan_cache_test"));
      // Plannings are counted by pg_stat_statements, which the test servers preload (as Neon).
      await direct.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      await direct.query(`CREATE OR REPLACE FUNCTION plan_cache_probe() RETURNS int
        LANGUAGE plpgsql AS $$ BEGIN RETURN (SELECT count(*)::int AS plan_cache_probe FROM items); END $$`);
      const planned = async () =>
        (
          await direct.query<{ calls: number; plans: number }>(
            `SELECT coalesce(sum(calls), 0)::int AS calls, coalesce(sum(plans), 0)::int AS plans
             FROM pg_stat_statements WHERE query LIKE '%AS plan_cache_probe FROM items%'`,
          )
        ).rows[0];
      // The statement inside the function, counted on its own and with its plannings.
      const probe = async (client: NeonClient) => {
        await client.query("SET pg_stat_statements.track = 'all'");
        await client.query("SET pg_stat_statements.track_planning = on");
        await client.query("SELECT plan_cache_probe()");
        return backendPid(client);
      };
      const before = await planned();
      const first = await session(probe);
      await backInPool(first);
      const second = await session(probe);
      expect(second).toBe(first);
      const after = await planned();
      // Two runs of the function's statement on one backend, planned once: DISCARD ALL (which
      // holds DISCARD PLANS) between the two clients made it twice.
      expect((after?.calls ?? 0) - (before?.calls ?? 0)).toBe(2);
      expect((after?.plans ?? 0) - (before?.plans ?? 0)).toBe(1);
    });

    it("cuts and silences connections and requests on demand, as the PGlite server's faults do", async () => {
      const pool = new NeonPool({ connectionString: database.url, max: 1 });
      pool.on("error", () => {});
      const client = await pool.connect();
      client.on("error", () => {});
      await client.query("BEGIN");
      await client.query("INSERT INTO items (label) VALUES ('cut-in-tx')");
      expect(proxy.faults.dropAll()).toBe(1);
      await expect(client.query("COMMIT")).rejects.toThrow();
      client.release(true);
      await pool.end();
      // The server rolled back what the cut connection left open.
      for (let i = 0; i < 50 && proxy.connectionCount() > 0; i++) await sleep(20);
      const { rows } = await direct.query(
        "SELECT count(*)::int AS n FROM items WHERE label = 'cut-in-tx'",
      );
      expect(rows).toEqual([{ n: 0 }]);

      const sql = neon(database.url);
      proxy.faults.silenceAfter({ connections: 1, afterMessages: 1 });
      const silenced = await sql
        .query("SELECT 1", [], { fetchOptions: { signal: AbortSignal.timeout(500) } })
        .catch((e) => e);
      expect(String(silenced)).toMatch(/abort|timeout/i);
      proxy.faults.dropAfter({ connections: 1, afterMessages: 1 });
      await expect(sql.query("SELECT 1")).rejects.toThrow(/connecting to database/);

      // A WebSocket connection cut after its startup message never gets a session.
      const before = proxy.faults.dropped;
      proxy.faults.dropAfter({ connections: 1, afterMessages: 1 });
      const cutPool = new NeonPool({ connectionString: database.url, max: 1 });
      cutPool.on("error", () => {});
      await expect(cutPool.query("SELECT 1")).rejects.toThrow();
      await cutPool.end().catch(() => {});
      expect(proxy.faults.dropped).toBe(before + 1);
      proxy.faults.reset();
      expect(await sql.query("SELECT 2 AS two")).toEqual([{ two: 2 }]);
    });
  },
);

describe.skipIf(!SERVER)(
  "the native proxy to a server that wants TLS, as Neon does (needs QUARRY_TEST_DATABASE_URL)",
  () => {
    let database: ScratchDatabase;
    let front: Server;
    let proxy: NativeProxy;
    let dir: string;
    const seen = { tls: 0, plain: 0 };

    beforeAll(async () => {
      database = await createScratchDatabase(SERVER!, `${PREFIX}tls_`);
      // A TLS-only front for the test server (it has no TLS of its own): answers SSLRequest
      // with 'S', terminates TLS with a throwaway self-signed certificate, refuses plain ones.
      dir = await mkdtemp(join(tmpdir(), "quarry-tls-"));
      const key = join(dir, "key.pem");
      const cert = join(dir, "cert.pem");
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
        ].concat(["-keyout", key, "-out", cert]),
        { stdio: "ignore" },
      );
      const context = createSecureContext({ key: await readFile(key), cert: await readFile(cert) });
      const target = new URL(database.url);
      front = createServer((client) => {
        client.on("error", () => {});
        client.once("data", (first: Buffer) => {
          if (first.length !== 8 || first.readInt32BE(4) !== 80877103) {
            seen.plain++;
            client.destroy();
            return;
          }
          seen.tls++;
          client.write("S");
          const secure = new TLSSocket(client, { isServer: true, secureContext: context });
          const upstream = connect(Number(target.port || 5432), target.hostname);
          upstream.on("error", () => secure.destroy());
          secure.on("error", () => upstream.destroy());
          secure.pipe(upstream).pipe(secure);
        });
      });
      await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
      const url = new URL(database.url);
      url.host = `127.0.0.1:${(front.address() as { port: number }).port}`;
      url.searchParams.set("sslmode", "no-verify");
      proxy = await startNativeProxy({ databaseUrl: url.toString() });
      pointNeonAt(proxy);
    });

    afterAll(async () => {
      await proxy?.close();
      await new Promise((resolve) => front?.close(resolve));
      await database?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("negotiates TLS for the plain protocol the driver sends in its WebSocket, and for /sql", async () => {
      // The driver's URL has no sslmode: the proxy's own URL decides on TLS, as Neon's does.
      const url = database.url;
      const pool = new NeonPool({ connectionString: url, max: 1 });
      const client = await pool.connect();
      await client.query("BEGIN");
      await client.query("CREATE TABLE t (n int)");
      await client.query("INSERT INTO t VALUES (1), (2)");
      await client.query("COMMIT");
      client.release();
      await pool.end();
      expect(await neon(url).query("SELECT sum(n)::int AS s FROM t")).toEqual([{ s: 3 }]);
      expect(seen.tls).toBeGreaterThanOrEqual(2); // the pipe's connection and the pool's
      expect(seen.plain).toBe(0);
    });
  },
);

describe.skipIf(!SERVER)(
  "a whole stack on native PostgreSQL (needs QUARRY_TEST_DATABASE_URL)",
  () => {
    let database: ScratchDatabase;
    let dataDir: string;
    let stack: Stack;

    beforeAll(async () => {
      database = await createScratchDatabase(SERVER!, `${PREFIX}stack_`);
      dataDir = await mkdtemp(join(tmpdir(), "quarry-native-stack-"));
      stack = await startStack({
        dataDir,
        databaseUrl: database.url,
        wranglerOutput: { file: join(dataDir, "wrangler.log") },
      });
    }, 180_000);

    afterAll(async () => {
      await stack?.stop();
      await database?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    async function call(path: string, init: { method?: string; body?: unknown; token?: string }) {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method: init.method ?? "GET",
        headers: {
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
    }

    it("runs on the native engine and migrated the database", async () => {
      expect(stack.engine).toBe("native");
      if (stack.engine !== "native") return;
      expect(compareVersions(stack.pgvectorVersion, "0.8.0")).toBeGreaterThanOrEqual(0);
      expect(stack.databaseUrl).toBe(database.url);
      const health = await call("/health", {});
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: "ok" });
    });

    it("writes rows through the API into the native database", async () => {
      const project = await call("/admin/projects", {
        method: "POST",
        body: { name: "native" },
        token: stack.adminToken,
      });
      expect(project.status, project.text).toBe(201);
      const key = await call(`/admin/projects/${project.body.id}/keys`, {
        method: "POST",
        body: { name: "native-key" },
        token: stack.adminToken,
      });
      expect(key.status, key.text).toBe(201);
      const token = key.body.key as string;
      const dataset = await call("/api/datasets", {
        method: "POST",
        body: { name: "native", kind: "hybrid" },
        token,
      });
      expect(dataset.status, dataset.text).toBe(201);
      const datasetId = dataset.body.id as string;
      const texts = ["aurora over the fjord", "midnight sun in june", "polar night in december"];
      const upsert = await call(`/api/datasets/${datasetId}/rows/upsert`, {
        method: "POST",
        body: {
          document_id: "notes",
          rows: texts.map((text, i) => ({ data: { text }, metadata: { i } })),
        },
        token,
      });
      expect(upsert.status, upsert.text).toBe(200);
      const search = await call(`/api/datasets/${datasetId}/search`, {
        method: "POST",
        body: { query: "aurora fjord", top_k: 2 },
        token,
      });
      expect(search.status, search.text).toBe(200);

      // Straight from the native server, not through the stack.
      const client = new pg.Client({ connectionString: stack.databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query(
          "SELECT data->>'text' AS text, embedding IS NOT NULL AS embedded FROM rows WHERE dataset_id = $1 AND document_id = 'notes' ORDER BY id",
          [datasetId],
        );
        expect(rows).toEqual(texts.map((text) => ({ text, embedded: true })));
      } finally {
        await client.end();
      }
    });
  },
);

/** The Neon driver's endpoints, in this process: those of `proxy`. */
function pointNeonAt(proxy: NativeProxy): void {
  neonConfig.fetchEndpoint = () => `http://${proxy.host}:${proxy.wsPort}/sql`;
  neonConfig.webSocketConstructor = WebSocket;
  neonConfig.wsProxy = (host, port) => `${proxy.host}:${proxy.wsPort}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
  neonConfig.pipelineTLS = false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
