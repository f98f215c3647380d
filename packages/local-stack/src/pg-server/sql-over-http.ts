import type { IncomingMessage, ServerResponse } from "node:http";
import type { PGlite } from "@electric-sql/pglite";
import type { FaultPolicy } from "./faults.ts";
import { extendedQueryMessages } from "./protocol.ts";
import type { SessionLock } from "./session-lock.ts";

/**
 * Neon's SQL-over-HTTP endpoint (`POST /sql`), which `@neondatabase/serverless` uses for
 * one-shot queries (`neon()`, and `Pool.query` with `poolQueryViaFetch`): one statement per
 * request, run in its own implicit transaction, with text parameters and text results — the
 * `Neon-Raw-Text-Output`/`Neon-Array-Mode` form, the only one the driver asks for. A statement
 * error is a 400 whose JSON carries Postgres's error fields, which the driver turns into a
 * `NeonDbError` with the same `code`, `detail`, `constraint`, … as over a connection.
 *
 * The statement takes PGlite's one session through the same lock as the wire-protocol
 * connections, between their turns. Batches (`sql.transaction([...])`) are refused: nothing
 * in Quarry sends them, and interactive transactions go over WebSocket.
 */
export interface SqlOverHttpOptions {
  db: PGlite;
  lock: SessionLock<unknown>;
  faults: { cut: FaultPolicy; silence: FaultPolicy };
  log: (msg: string) => void;
  /** in-flight requests, so a cut-all fault can reach them */
  inFlight: Set<ServerResponse>;
}

/** Largest request body accepted: a statement with a few MB of rows, far beyond any we send. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

export function sqlOverHttp(options: SqlOverHttpOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { faults } = options;
    // A fault that strikes a connection after its first message strikes a request before its
    // statement runs: the request is its connection, the statement its only message.
    if (faults.silence.armed && faults.silence.strikes(1)) {
      faults.silence.struck++;
      options.log("[pg-server http] silenced (injected fault)");
      return; // never answered; the client's deadline ends it
    }
    if (faults.cut.armed && faults.cut.strikes(1)) {
      faults.cut.struck++;
      res.destroy();
      return;
    }
    options.inFlight.add(res);
    res.on("close", () => options.inFlight.delete(res));
    let statement: { query: string; params: (string | null)[] };
    try {
      statement = parseStatement(await readBody(req));
    } catch (error) {
      reply(res, error instanceof BodyTooLarge ? 413 : 400, {
        message: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    const owner = {};
    const granted = await options.lock.acquire(owner);
    if (!granted) return;
    try {
      // The client may have gone while we waited for the session: do not run its statement.
      if (res.destroyed) return;
      // The raw-stream entry point, as the wire connections use it: PGlite's parsed
      // `execProtocol` keeps a stream callback of theirs that would swallow this reply.
      const chunks: Uint8Array[] = [];
      await options.db.runExclusive(() =>
        options.db.execProtocolRawStream(extendedQueryMessages(statement.query, statement.params), {
          onRawData: (data) => chunks.push(Uint8Array.from(data)),
        }),
      );
      const messages = parseBackendMessages(Buffer.concat(chunks));
      if (options.db.isInTransaction()) {
        // BEGIN alone: the session must not stay in a transaction nobody will end.
        await options.db.exec("ROLLBACK"); // takes PGlite's query mutex itself
        reply(res, 400, { message: "transaction control is not supported over HTTP" });
        return;
      }
      const { status, body } = toNeonResult(messages);
      reply(res, status, body);
    } catch (error) {
      reply(res, 500, { message: error instanceof Error ? error.message : String(error) });
    } finally {
      options.lock.release(owner);
    }
  };
}

/** The JSON Neon answers with: fields, text rows, command and row count; or the error. */
function toNeonResult(messages: BackendReply): { status: number; body: unknown } {
  if (messages.error) {
    const { message, ...fields } = messages.error;
    const body: Record<string, string> = { message: message ?? "unknown error" };
    for (const field of ERROR_FIELDS) {
      const value = fields[field];
      if (value !== undefined) body[field] = value;
    }
    return { status: 400, body };
  }
  const { fields, rows } = messages;
  const tag = messages.commandTag ?? "";
  const [command = "", ...rest] = tag.split(" ");
  const count = Number(rest.at(-1));
  return {
    status: 200,
    body: {
      command,
      rowCount: Number.isInteger(count) ? count : null,
      rows,
      fields,
      rowAsArray: true,
    },
  };
}

interface BackendReply {
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
  commandTag: string | undefined;
  error: Partial<Record<(typeof ERROR_FIELDS)[number] | "message", string>> | undefined;
}

/** ErrorResponse field codes, as Postgres's protocol documentation lists them. */
const ERROR_FIELD_CODES: Record<string, (typeof ERROR_FIELDS)[number] | "message"> = {
  V: "severity",
  C: "code",
  M: "message",
  D: "detail",
  H: "hint",
  P: "position",
  p: "internalPosition",
  q: "internalQuery",
  W: "where",
  s: "schema",
  t: "table",
  c: "column",
  d: "dataType",
  n: "constraint",
  F: "file",
  L: "line",
  R: "routine",
};

/** The backend messages of one statement's reply: row description, rows, tag, error. */
function parseBackendMessages(bytes: Buffer): BackendReply {
  const reply: BackendReply = { fields: [], rows: [], commandTag: undefined, error: undefined };
  let at = 0;
  while (at + 5 <= bytes.length) {
    const type = String.fromCharCode(bytes[at] as number);
    const end = at + 1 + bytes.readInt32BE(at + 1);
    let p = at + 5;
    const cstring = () => {
      const zero = bytes.indexOf(0, p);
      const text = bytes.toString("utf8", p, zero);
      p = zero + 1;
      return text;
    };
    if (type === "T") {
      const count = bytes.readInt16BE(p);
      p += 2;
      for (let i = 0; i < count; i++) {
        const name = cstring();
        const dataTypeID = bytes.readInt32BE(p + 6);
        p += 18; // table oid, column, type oid, type size, type modifier, format
        reply.fields.push({ name, dataTypeID });
      }
    } else if (type === "D") {
      const count = bytes.readInt16BE(p);
      p += 2;
      const row: (string | null)[] = [];
      for (let i = 0; i < count; i++) {
        const length = bytes.readInt32BE(p);
        p += 4;
        row.push(length === -1 ? null : bytes.toString("utf8", p, p + length));
        if (length > 0) p += length;
      }
      reply.rows.push(row);
    } else if (type === "C") {
      reply.commandTag = cstring();
    } else if (type === "E") {
      const error: NonNullable<BackendReply["error"]> = {};
      while (p < end && bytes[p] !== 0) {
        const code = String.fromCharCode(bytes[p] as number);
        p++;
        const value = cstring();
        const field = ERROR_FIELD_CODES[code];
        if (field) error[field] = value;
      }
      reply.error ??= error;
    }
    at = end;
  }
  return reply;
}

function parseStatement(text: string): { query: string; params: (string | null)[] } {
  const body = JSON.parse(text) as { query?: unknown; params?: unknown; queries?: unknown };
  if (body.queries !== undefined) {
    throw new Error("batches (sql.transaction) are not supported by the local stack");
  }
  if (typeof body.query !== "string") throw new Error("query must be a string");
  const params = body.params ?? [];
  if (!Array.isArray(params) || !params.every((p) => p === null || typeof p === "string")) {
    throw new Error("params must be an array of strings and nulls");
  }
  if (body.query.includes("\0") || params.some((p) => p?.includes("\0"))) {
    throw new Error("a query or parameter contains a NUL character");
  }
  return { query: body.query, params };
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge(`body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}
