import type { IncomingMessage, ServerResponse } from "node:http";
import type { FaultPolicy } from "./pg-server/faults.ts";

/**
 * Neon's SQL-over-HTTP endpoint (`POST /sql`) as the local stack serves it, whatever runs the
 * statement (PGlite's loopback server, or the native proxy in front of a real PostgreSQL):
 * `@neondatabase/serverless` uses it for one-shot queries (`neon()`, and `Pool.query` with
 * `poolQueryViaFetch`). One statement per request, run in its own implicit transaction, with
 * text parameters and text results — the `Neon-Raw-Text-Output`/`Neon-Array-Mode` form, the
 * only one the driver asks for. A statement error is a 400 whose JSON carries Postgres's error
 * fields, which the driver turns into a `NeonDbError` with the same `code`, `detail`,
 * `constraint`, … as over a connection. Batches (`sql.transaction([...])`) are refused:
 * nothing in Quarry sends them, and interactive transactions go over WebSocket.
 *
 * This module is the wire format and the request's life (faults, body, reply); the engine
 * only runs the statement.
 */
export interface Statement {
  query: string;
  params: (string | null)[];
}

/** What the engine's statement produced, as Neon answers it (status and JSON body). */
export interface NeonReply {
  status: number;
  body: unknown;
}

/**
 * Runs one statement for a request. `left` aborts when the client goes away before its
 * answer (its deadline passed, its connection dropped): a statement not started yet should
 * not run then, one running should be cancelled, and `undefined` means nothing is to be
 * answered.
 */
export type RunStatement = (
  statement: Statement,
  left: AbortSignal,
) => Promise<NeonReply | undefined>;

export interface NeonSqlEndpointOptions {
  run: RunStatement;
  faults: { cut: FaultPolicy; silence: FaultPolicy };
  log: (msg: string) => void;
  /** names the server in the fault log lines */
  label: string;
  /** in-flight requests, so a cut-all fault can reach them */
  inFlight: Set<ServerResponse>;
}

/** What a server passes on to its endpoint: all but the label and the statement runner. */
export type NeonSqlEndpointShared = Omit<NeonSqlEndpointOptions, "run" | "label">;

/** Largest request body accepted: a statement with a few MB of rows, far beyond any we send. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The error fields Postgres reports (beside `message`), by the names Neon's JSON uses. */
export const ERROR_FIELDS = [
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

export type PgErrorFields = Partial<Record<(typeof ERROR_FIELDS)[number] | "message", string>>;

/** The error fields of a Postgres error as parsed by pg-protocol (the class `pg` re-exports). */
export function pgErrorFields(
  error: { message: string } & Partial<Record<(typeof ERROR_FIELDS)[number], unknown>>,
): PgErrorFields {
  const fields: PgErrorFields = { message: error.message };
  for (const name of ERROR_FIELDS) {
    const value = error[name];
    if (value !== undefined) fields[name] = String(value);
  }
  return fields;
}

export function neonSqlEndpoint(options: NeonSqlEndpointOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { faults } = options;
    // A fault that strikes a connection after its first message strikes a request before its
    // statement runs: the request is its connection, the statement its only message.
    if (faults.silence.armed && faults.silence.strikes(1)) {
      faults.silence.struck++;
      options.log(`[${options.label} http] silenced (injected fault)`);
      return; // never answered; the client's deadline ends it
    }
    if (faults.cut.armed && faults.cut.strikes(1)) {
      faults.cut.struck++;
      res.destroy();
      return;
    }
    options.inFlight.add(res);
    const left = new AbortController();
    res.on("close", () => {
      options.inFlight.delete(res);
      if (!res.writableFinished) left.abort();
    });
    let statement: Statement;
    try {
      statement = parseStatement(await readBody(req));
    } catch (error) {
      reply(res, error instanceof BodyTooLarge ? 413 : 400, {
        message: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    try {
      const answer = await options.run(statement, left.signal);
      if (answer) reply(res, answer.status, answer.body);
    } catch (error) {
      reply(res, 500, { message: error instanceof Error ? error.message : String(error) });
    }
  };
}

/** A statement's result: fields, text rows, command and row count, in array mode. */
export function neonResult(result: {
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
  command: string;
  rowCount: number | null;
}): NeonReply {
  return {
    status: 200,
    body: {
      command: result.command,
      rowCount: result.rowCount,
      rows: result.rows,
      fields: result.fields,
      rowAsArray: true,
    },
  };
}

/** `command` and row count from a CommandComplete tag ("INSERT 0 3", "CREATE TABLE"). */
export function fromCommandTag(tag: string): { command: string; rowCount: number | null } {
  const [command = "", ...rest] = tag.split(" ");
  const count = Number(rest.at(-1));
  return { command, rowCount: Number.isInteger(count) ? count : null };
}

/** A statement error, with Postgres's fields. */
export function neonError(error: PgErrorFields): NeonReply {
  const body: Record<string, string> = { message: error.message ?? "unknown error" };
  for (const field of ERROR_FIELDS) {
    const value = error[field];
    if (value !== undefined) body[field] = value;
  }
  return { status: 400, body };
}

/**
 * The reply to a statement that leaves the session in a transaction (BEGIN alone): refused, as
 * nobody would end it; each server rolls it back first.
 */
export function transactionControlRefusal(): NeonReply {
  return { status: 400, body: { message: "transaction control is not supported over HTTP" } };
}

function parseStatement(text: string): Statement {
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
