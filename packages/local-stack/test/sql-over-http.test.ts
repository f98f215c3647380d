import { connect } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { Pool as NeonPool, neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type PgServer, startPgServer } from "../src/pg-server/index.ts";
import {
  DUPLICATE_LABEL_ERROR,
  EVERY_TYPE_PARAMS,
  EVERY_TYPE_ROW,
  INSERT_EVERY_TYPE,
  ITEMS_TABLE,
} from "./support/every-type-row.ts";

/**
 * The local stack's stand-in for Neon's SQL-over-HTTP endpoint, read by the real driver:
 * `neon()` and `Pool.query` with `poolQueryViaFetch`, as the workers use it.
 */
let db: PGlite;
let server: PgServer;
const URL = "postgresql://quarry:quarry@localhost:5432/postgres";

beforeAll(async () => {
  db = new PGlite({ extensions: { vector } });
  await db.exec(`CREATE EXTENSION vector; ${ITEMS_TABLE}`);
  server = await startPgServer(db);
  neonConfig.fetchEndpoint = () => `http://${server.host}:${server.wsPort}/sql`;
  neonConfig.webSocketConstructor = WebSocket;
  neonConfig.wsProxy = () => `${server.host}:${server.wsPort}/v1`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
});

afterAll(async () => {
  await server?.close();
  await db?.close();
});

beforeEach(async () => {
  await db.exec("TRUNCATE items RESTART IDENTITY");
  server.faults.reset();
});

describe("SQL over HTTP (Neon's /sql)", () => {
  it("keeps an idle keep-alive connection open for the client's next statement", async () => {
    // One socket, two requests 6 s apart: past Node's default keep-alive timeout (5 s), after
    // which the server used to close the socket under a client about to reuse it.
    const socket = connect(server.wsPort, server.host);
    const replies: string[] = [];
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString();
      const end = buffered.indexOf("\r\n\r\n");
      if (end >= 0 && buffered.includes('"rows"')) {
        replies.push(buffered);
        buffered = "";
      }
    });
    const closed = new Promise<string>((resolve) => socket.on("close", () => resolve("closed")));
    const request = () => {
      const body = JSON.stringify({ query: "SELECT 1 AS one", params: [] });
      socket.write(
        `POST /sql HTTP/1.1\r\nHost: ${server.host}\r\nConnection: keep-alive\r\n` +
          `Neon-Connection-String: ${URL}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    };
    const replied = async (count: number) => {
      for (let i = 0; i < 100 && replies.length < count; i++)
        await new Promise((r) => setTimeout(r, 20));
      return replies.length;
    };
    request();
    expect(await replied(1)).toBe(1);
    const idle = await Promise.race([
      closed,
      new Promise((r) => setTimeout(() => r("open"), 6_000)),
    ]);
    expect(idle).toBe("open");
    request();
    expect(await replied(2)).toBe(2);
    expect(replies[1]).toMatch(/^HTTP\/1\.1 200/);
    socket.destroy();
  }, 15_000);

  it("runs a parameterised statement and returns every type as Postgres prints it, parsed by the driver", async () => {
    const sql = neon(URL);
    const inserted = await sql.query(INSERT_EVERY_TYPE, EVERY_TYPE_PARAMS);
    expect(inserted).toEqual([EVERY_TYPE_ROW]);
    const nulls = await sql.query("SELECT NULL::text AS t, $1::int AS n", [null]);
    expect(nulls).toEqual([{ t: null, n: null }]);
  });

  it("reports the command and row count, and array mode, as the driver's full results", async () => {
    const sql = neon(URL, { fullResults: true, arrayMode: true });
    await sql.query("INSERT INTO items (label) VALUES ('a'), ('b'), ('c')");
    const updated = await sql.query("UPDATE items SET score = 1 WHERE label <> $1", ["a"]);
    expect(updated).toMatchObject({ command: "UPDATE", rowCount: 2 });
    const selected = await sql.query("SELECT label FROM items ORDER BY id");
    expect(selected.rows).toEqual([["a"], ["b"], ["c"]]);
    expect(selected.fields.map((f) => f.name)).toEqual(["label"]);
  });

  it("turns a statement error into the driver's NeonDbError with Postgres's fields, and changes nothing", async () => {
    const sql = neon(URL);
    await sql.query("INSERT INTO items (label) VALUES ('dup')");
    const failed = await sql.query("INSERT INTO items (label) VALUES ('dup')").catch((e) => e);
    expect(failed).toMatchObject(DUPLICATE_LABEL_ERROR);
    const syntax = await sql.query("SELEC 1").catch((e) => e);
    expect(syntax).toMatchObject({ code: "42601" });
    expect(await sql.query("SELECT count(*)::int AS n FROM items")).toEqual([{ n: 1 }]);
  });

  it("never leaves the shared session in a transaction", async () => {
    const sql = neon(URL);
    await expect(sql.query("BEGIN")).rejects.toThrow(/transaction control/);
    expect(db.isInTransaction()).toBe(false);
    expect(await sql.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  it("serves Pool.query over HTTP and transactions over WebSocket, taking turns for the one session", async () => {
    neonConfig.poolQueryViaFetch = true;
    try {
      const pool = new NeonPool({ connectionString: URL, max: 1 });
      const client = await pool.connect();
      await client.query("BEGIN");
      await client.query("INSERT INTO items (label) VALUES ('in-tx')");
      // An HTTP statement waits for the open transaction's turn, then sees its commit.
      const counted = pool.query("SELECT count(*)::int AS n FROM items");
      await client.query("COMMIT");
      client.release();
      expect((await counted).rows).toEqual([{ n: 1 }]);
      expect(server.connectionCount()).toBe(1);
      await pool.end();
    } finally {
      neonConfig.poolQueryViaFetch = false;
    }
  });

  it("obeys the silence and cut faults, one request per struck connection", async () => {
    const sql = neon(URL);
    server.faults.silenceAfter({ connections: 1, afterMessages: 1 });
    const silenced = await sql
      .query("SELECT 1", [], { fetchOptions: { signal: AbortSignal.timeout(500) } })
      .catch((e) => e);
    expect(String(silenced)).toMatch(/abort|timeout/i);
    expect(server.faults.silenced).toBeGreaterThanOrEqual(1);
    server.faults.dropAfter({ connections: 1, afterMessages: 1 });
    await expect(sql.query("SELECT 1")).rejects.toThrow(/connecting to database/);
    expect(await sql.query("SELECT 2 AS two")).toEqual([{ two: 2 }]);
  });
});
