import { once } from "node:events";
import { connect as connectTcp, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { Client as NeonClient, Pool as NeonPool, neonConfig } from "@neondatabase/serverless";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { type PgServer, SessionProfile, startPgServer } from "../src/pg-server/index.ts";

let db: PGlite;
let server: PgServer;

beforeAll(async () => {
  db = new PGlite({ extensions: { vector } });
  await db.exec(`
    CREATE EXTENSION vector;
    CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL, embedding vector(3));
  `);
  server = await startPgServer(db);
});

afterAll(async () => {
  await server?.close();
  await db?.close();
});

beforeEach(async () => {
  await db.exec("TRUNCATE items");
});

function pgConfig(target: PgServer = server): pg.ClientConfig {
  return {
    host: target.host,
    port: target.pgPort,
    user: "quarry",
    password: "quarry",
    database: "postgres",
  };
}

async function pgClient(target: PgServer = server): Promise<pg.Client> {
  const client = new pg.Client(pgConfig(target));
  await client.connect();
  return client;
}

/** Runs `total` tasks with at most `concurrency` in flight; returns results in task order. */
async function runConcurrently<T>(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = new Array(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      try {
        results[i] = { status: "fulfilled", value: await task(i) };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

async function countLabel(label: string): Promise<number> {
  const client = await pgClient();
  try {
    const res = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM items WHERE label = $1",
      [label],
    );
    return res.rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function waitForNoConnections(target: PgServer = server): Promise<void> {
  await vi.waitFor(() => expect(target.connectionCount()).toBe(0), { timeout: 5000 });
}

// --- raw protocol helpers, for behaviour that drivers hide -----------------------

function startupMessage(): Buffer {
  const params = ["user", "quarry", "database", "postgres"].map((s) => `${s}\0`).join("");
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), Buffer.from(`${params}\0`)]);
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length + 4);
  return Buffer.concat([len, body]);
}

function typed(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const cstr = (s: string) => Buffer.from(`${s}\0`);
const READY_IDLE = Buffer.from("Z\0\0\0\x05I", "latin1");
const READY_IN_TX = Buffer.from("Z\0\0\0\x05T", "latin1");

/** Collects everything a socket receives, and waits for patterns in it. */
function collect(onData: (listener: (chunk: Buffer) => void) => void) {
  let received = Buffer.alloc(0);
  const waiters: (() => void)[] = [];
  onData((chunk) => {
    received = Buffer.concat([received, chunk]);
    for (const w of waiters.splice(0)) w();
  });
  return {
    get bytes() {
      return received;
    },
    async until(pattern: Buffer, from = 0): Promise<number> {
      for (;;) {
        const at = received.indexOf(pattern, from);
        if (at !== -1) return at + pattern.length;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

async function rawTcp(): Promise<{ socket: Socket; inbox: ReturnType<typeof collect> }> {
  const socket = connectTcp(server.pgPort, server.host);
  await once(socket, "connect");
  const inbox = collect((listener) => socket.on("data", listener));
  return { socket, inbox };
}

// ---------------------------------------------------------------------------------

describe("pg over TCP", () => {
  it("runs simple, parameterised and vector queries", async () => {
    const client = await pgClient();
    try {
      expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      const sum = await client.query("SELECT $1::int + $2::int AS sum", [40, 2]);
      expect(sum.rows).toEqual([{ sum: 42 }]);
      const dist = await client.query("SELECT '[1,2,3]'::vector <-> '[1,2,4]'::vector AS d");
      expect(dist.rows).toEqual([{ d: 1 }]);

      await client.query("INSERT INTO items (label, embedding) VALUES ($1, $2), ($3, $4)", [
        "near",
        "[1,2,3]",
        "far",
        "[9,9,9]",
      ]);
      const nearest = await client.query(
        "SELECT label FROM items ORDER BY embedding <-> $1::vector LIMIT 1",
        ["[1,2,4]"],
      );
      expect(nearest.rows).toEqual([{ label: "near" }]);
    } finally {
      await client.end();
    }
  });

  it("serves 200 requests from 16 concurrent clients", async () => {
    const results = await runConcurrently(200, 16, async (i) => {
      const client = await pgClient();
      try {
        // Every 10th request fails mid extended-protocol batch, which must not
        // leak into whoever gets the session next.
        if (i % 10 === 9) {
          await expect(client.query("SELECT $1::int / 0", [i])).rejects.toThrow(/division by zero/);
        }
        // Distinct SQL text per request: if another client's Parse slipped in
        // between our Parse and Bind, we would get its `n` back.
        const res = await client.query<{ doubled: number; tag: string; n: number }>(
          `SELECT $1::int * 2 AS doubled, $2::text AS tag, ${i}::int AS n`,
          [i, `req-${i}`],
        );
        return res.rows[0];
      } finally {
        await client.end();
      }
    });
    const failures = results.filter((r) => r.status === "rejected");
    expect(failures).toEqual([]);
    results.forEach((r, i) => {
      expect(r).toEqual({ status: "fulfilled", value: { doubled: i * 2, tag: `req-${i}`, n: i } });
    });
    await waitForNoConnections();
  });

  it("makes other clients wait while one is inside a transaction", async () => {
    const a = await pgClient();
    const b = await pgClient();
    try {
      await a.query("BEGIN");
      await a.query("INSERT INTO items (label) VALUES ('from-a')");

      let bFinished = false;
      const bQuery = b
        .query<{ n: number }>("SELECT count(*)::int AS n FROM items WHERE label = 'from-a'")
        .then((res) => {
          bFinished = true;
          return res;
        });
      await sleep(300);
      expect(bFinished).toBe(false);

      // A keeps working in its transaction while B waits.
      const inside = await a.query("SELECT count(*)::int AS n FROM items WHERE label = 'from-a'");
      expect(inside.rows).toEqual([{ n: 1 }]);
      await a.query("COMMIT");

      expect((await bQuery).rows).toEqual([{ n: 1 }]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it("rolls back a client that vanishes mid-transaction", async () => {
    const doomed = await pgClient();
    doomed.on("error", () => {});
    await doomed.query("BEGIN");
    await doomed.query("INSERT INTO items (label) VALUES ('vanished')");
    const other = pgClient(); // waits for the session behind the open transaction
    // Abrupt disconnect: no Terminate, just a dead socket.
    (doomed as unknown as { connection: { stream: Socket } }).connection.stream.destroy();

    const survivor = await other;
    try {
      const res = await survivor.query("SELECT count(*)::int AS n FROM items WHERE label = $1", [
        "vanished",
      ]);
      expect(res.rows).toEqual([{ n: 0 }]);
      expect(db.isInTransaction()).toBe(false);
    } finally {
      await survivor.end();
    }
  });

  it("rolls back a client that ends politely mid-transaction", async () => {
    const client = await pgClient();
    await client.query("BEGIN");
    await client.query("INSERT INTO items (label) VALUES ('abandoned')");
    await client.end(); // sends Terminate while the transaction is open
    expect(await countLabel("abandoned")).toBe(0);
    expect(db.isInTransaction()).toBe(false);
  });

  /** Parse/Bind/Execute `sql` (unnamed), then Flush — but never Sync. */
  function executeWithoutSync(sql: string): Buffer {
    return Buffer.concat([
      typed("P", Buffer.concat([cstr(""), cstr(sql), Buffer.from([0, 0])])),
      typed("B", Buffer.concat([cstr(""), cstr(""), Buffer.from([0, 0, 0, 0, 0, 0])])),
      typed("E", Buffer.concat([cstr(""), Buffer.from([0, 0, 0, 0])])),
      typed("H"),
    ]);
  }
  const INSERT_DONE = Buffer.from("C\0\0\0\x0fINSERT 0 1\0", "latin1");

  it("rolls back a client that drops between Execute and Sync inside BEGIN", async () => {
    const { socket, inbox } = await rawTcp();
    socket.write(startupMessage());
    await inbox.until(READY_IDLE);
    socket.write(typed("Q", cstr("BEGIN")));
    await inbox.until(READY_IN_TX);
    socket.write(executeWithoutSync("INSERT INTO items (label) VALUES ('raw-tx')"));
    await inbox.until(INSERT_DONE);
    socket.destroy();

    expect(await countLabel("raw-tx")).toBe(0);
    expect(db.isInTransaction()).toBe(false);
  });

  it("does not commit the implicit transaction of a client that drops before Sync", async () => {
    // Sending Sync on the dead client's behalf would COMMIT this INSERT; a real
    // Postgres backend would abort it when the client vanished.
    const { socket, inbox } = await rawTcp();
    socket.write(startupMessage());
    await inbox.until(READY_IDLE);
    socket.write(executeWithoutSync("INSERT INTO items (label) VALUES ('raw-implicit')"));
    await inbox.until(INSERT_DONE);
    socket.destroy();

    expect(await countLabel("raw-implicit")).toBe(0);
    expect(db.isInTransaction()).toBe(false);
  });

  it("recovers from a client that drops after an error, before Sync", async () => {
    // After an error Postgres ignores everything until Sync, so the cleanup must
    // start with a Sync or the next client's messages would be swallowed.
    const { socket, inbox } = await rawTcp();
    socket.write(startupMessage());
    await inbox.until(READY_IDLE);
    socket.write(executeWithoutSync("SELECT 1 / 0"));
    await inbox.until(Buffer.from("division by zero"));
    socket.destroy();

    expect(await countLabel("anything")).toBe(0);
    expect(db.isInTransaction()).toBe(false);
  });

  it("declines SSL and closes the socket itself on Terminate", async () => {
    const { socket, inbox } = await rawTcp();
    const sslRequest = Buffer.alloc(8);
    sslRequest.writeInt32BE(8, 0);
    sslRequest.writeInt32BE(80877103, 4);
    socket.write(sslRequest);
    await inbox.until(Buffer.from("N"));
    socket.write(startupMessage());
    await inbox.until(READY_IDLE);
    const ended = once(socket, "end");
    socket.write(typed("X"));
    await ended; // the server, not us, ended the connection
    socket.destroy();
    await waitForNoConnections();
  });
});

describe("Neon serverless driver over WebSocket", () => {
  const connectionString = "postgres://quarry:quarry@db.localtest:5432/postgres";

  beforeAll(() => {
    neonConfig.webSocketConstructor = WebSocket;
    neonConfig.wsProxy = (host, port) => `127.0.0.1:${server.wsPort}/v1?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  });

  it("serves 200 queries from 16 concurrent connections and closes them all", async () => {
    const results = await runConcurrently(200, 16, async (i) => {
      const client = new NeonClient(connectionString);
      await client.connect();
      try {
        const res = await client.query<{ doubled: number; n: number }>(
          `SELECT $1::int * 2 AS doubled, ${i}::int AS n`,
          [i],
        );
        return res.rows[0];
      } finally {
        await client.end();
      }
    });
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : null))).toEqual(
      Array.from({ length: 200 }, (_, i) => ({ doubled: i * 2, n: i })),
    );
    await waitForNoConnections();
  });

  it("runs a transaction through a Pool", async () => {
    const pool = new NeonPool({ connectionString, max: 4 });
    try {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("INSERT INTO items (label) VALUES ($1)", ["neon-tx"]);
        await client.query("INSERT INTO items (label) VALUES ($1)", ["neon-tx"]);
        await client.query("COMMIT");
        await client.query("BEGIN");
        await client.query("INSERT INTO items (label) VALUES ($1)", ["neon-rolled-back"]);
        await client.query("ROLLBACK");
      } finally {
        client.release();
      }
      const counts = await pool.query(
        "SELECT label, count(*)::int AS n FROM items GROUP BY label ORDER BY label",
      );
      expect(counts.rows).toEqual([{ label: "neon-tx", n: 2 }]);
    } finally {
      await pool.end();
    }
    await waitForNoConnections();
  });

  it("closes the WebSocket itself on Terminate", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.wsPort}/v1?address=db.localtest:5432`);
    await once(ws, "open");
    const inbox = collect((listener) =>
      ws.on("message", (data) => listener(Buffer.from(data as Buffer))),
    );
    ws.send(startupMessage());
    await inbox.until(READY_IDLE);
    const closed = once(ws, "close");
    ws.send(typed("X"));
    const [code] = await closed;
    expect(code).toBe(1000);
    await waitForNoConnections();
  });

  it("answers plain HTTP with 426", async () => {
    const res = await fetch(`http://127.0.0.1:${server.wsPort}/v1`);
    expect(res.status).toBe(426);
  });
});

describe("idle in transaction", () => {
  it("drops a client that sits on an open transaction and rolls it back", async () => {
    // A second server on the same PGlite shares the session lock with the first.
    const strict = await startPgServer(db, { idleInTransactionMs: 300 });
    try {
      const idler = await pgClient(strict);
      const idlerError = new Promise<Error>((resolve) => idler.on("error", resolve));
      await idler.query("BEGIN");
      await idler.query("INSERT INTO items (label) VALUES ('idle')");

      const started = Date.now();
      // This client must wait for the idler (both its startup and query need the session).
      const waiter = await pgClient();
      try {
        const res = await waiter.query("SELECT count(*)::int AS n FROM items WHERE label = 'idle'");
        expect(res.rows).toEqual([{ n: 0 }]);
      } finally {
        await waiter.end();
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);

      const err = (await idlerError) as Error & { code?: string };
      expect(err.code).toBe("25P03");
      await expect(idler.query("SELECT 1")).rejects.toThrow();
      await waitForNoConnections(strict);
    } finally {
      await strict.close();
    }
  });

  it("does not drop a client that is merely slow between statements outside a transaction", async () => {
    const strict = await startPgServer(db, { idleInTransactionMs: 300 });
    try {
      const client = await pgClient(strict);
      await sleep(500);
      expect((await client.query("SELECT 2 AS two")).rows).toEqual([{ two: 2 }]);
      await client.end();
    } finally {
      await strict.close();
    }
  });
});

describe("long turns on the session", () => {
  it("reports a turn that held the session long, with its slowest statement, and no quick one", async () => {
    const lines: string[] = [];
    const watched = await startPgServer(db, {
      longTurns: { thresholdMs: 200, stillHeldMs: 60_000, log: (line) => lines.push(line) },
    });
    try {
      const client = await pgClient(watched);
      await client.query("SELECT 1");
      await client.query("BEGIN");
      await client.query("SELECT pg_sleep(0.25)");
      await client.query("SELECT $1::int AS quick", [2]);
      await client.query("COMMIT");
      await client.end();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^\[session\] connection #\d+ held the session \d+ ms \(\d+ messages\); slowest message \d+ ms: SELECT pg_sleep\(0\.25\)$/,
      );
    } finally {
      await watched.close();
    }
  });

  it("reports a turn while it lasts, with the statement it ran latest", async () => {
    const lines: string[] = [];
    const watched = await startPgServer(db, {
      longTurns: { thresholdMs: 60_000, stillHeldMs: 200, log: (line) => lines.push(line) },
    });
    try {
      const client = await pgClient(watched);
      await client.query("BEGIN");
      await client.query("SELECT 'holding' AS state");
      await sleep(500);
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines[0]).toMatch(
        /^\[session\] connection #\d+ has held the session \d+ ms so far \(\d+ messages\); latest statement: SELECT 'holding' AS state$/,
      );
      await client.query("COMMIT");
      await client.end();
      // Once it ended, nothing more.
      const reported = lines.length;
      await sleep(300);
      expect(lines).toHaveLength(reported);
    } finally {
      await watched.close();
    }
  });
});

describe("the session's profile", () => {
  it("counts each statement's runs and time, a Parse's Bind/Execute/Sync included, since a snapshot", async () => {
    const profile = new SessionProfile();
    const watched = await startPgServer(db, { longTurns: { log: () => {}, profile } });
    try {
      const client = await pgClient(watched);
      await client.query("SELECT 'before the window' AS marker");
      const before = profile.snapshot();
      for (let i = 0; i < 3; i++) {
        // extended protocol: Parse, Bind, Describe, Execute, Sync
        await client.query("SELECT $1::int AS n, pg_sleep(0.05)", [i]);
      }
      await client.query("SELECT   'simple'\n  AS protocol"); // one Query message
      await client.end();
      const ran = profile.since(before);
      const sleeper = ran.find((s) => s.statement.startsWith("SELECT $1::int AS n"));
      expect(sleeper?.calls).toBe(3);
      // the time of the three runs' Execute messages counts towards the statement they ran
      expect(sleeper?.ms).toBeGreaterThanOrEqual(150);
      expect(ran.find((s) => s.statement === "SELECT 'simple' AS protocol")?.calls).toBe(1);
      expect(ran.some((s) => s.statement.includes("before the window"))).toBe(false);
      expect(ran[0]).toBe(sleeper); // longest first
    } finally {
      await watched.close();
    }
  });
});

describe("fault injection (test-only connection cuts)", () => {
  async function doomedClient() {
    const client = await pgClient();
    const error = new Promise<Error>((resolve) => client.on("error", resolve));
    return { client, error };
  }

  it("dropAll cuts every client at once; open transactions are rolled back", async () => {
    const { client, error } = await doomedClient();
    await client.query("BEGIN");
    await client.query("INSERT INTO items (label) VALUES ('cut-all')");
    expect(server.faults.dropAll()).toBeGreaterThanOrEqual(1);
    await expect(client.query("COMMIT")).rejects.toThrow();
    expect((await error).message).toMatch(/terminated unexpectedly|ECONNRESET/);
    await waitForNoConnections();
    expect(await countLabel("cut-all")).toBe(0);
  });

  it("dropAfter cuts the next connections after their K-th message, then disarms", async () => {
    const before = server.faults.dropped;
    // startup (1), BEGIN (2), INSERT (3): cut once the INSERT has run, before COMMIT
    server.faults.dropAfter({ connections: 1, afterMessages: 3 });
    const { client, error } = await doomedClient();
    await client.query("BEGIN");
    await client.query("INSERT INTO items (label) VALUES ('cut-after')").catch(() => {});
    await expect(client.query("COMMIT")).rejects.toThrow();
    await error;
    await waitForNoConnections();
    expect(server.faults.dropped).toBe(before + 1);
    // disarmed: the next client runs the same transaction to the end
    const next = await pgClient();
    await next.query("BEGIN");
    await next.query("INSERT INTO items (label) VALUES ('cut-after')");
    await next.query("COMMIT");
    await next.end();
    expect(await countLabel("cut-after")).toBe(1);
  });
});

describe("close()", () => {
  it("drops open connections, rolls back, and leaves PGlite usable", async () => {
    const extra = await startPgServer(db);
    const client = new pg.Client(pgConfig(extra));
    const clientError = new Promise<Error>((resolve) => client.on("error", resolve));
    await client.connect();
    await client.query("BEGIN");
    await client.query("INSERT INTO items (label) VALUES ('closing')");
    // events.once() would reject on the 'error' event pg emits for the dropped socket.
    const clientEnded = new Promise<void>((resolve) => client.once("end", () => resolve()));

    await extra.close();
    await clientEnded;
    expect((await clientError).message).toMatch(/terminated unexpectedly/);
    expect(extra.connectionCount()).toBe(0);
    expect(db.isInTransaction()).toBe(false);
    const res = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM items WHERE label = 'closing'",
    );
    expect(res.rows).toEqual([{ n: 0 }]);
  });
});
