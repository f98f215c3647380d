import type { ServerResponse } from "node:http";
import type { PGlite } from "@electric-sql/pglite";
import {
  type ERROR_FIELDS,
  fromCommandTag,
  type NeonReply,
  neonError,
  neonRefusal,
  neonResult,
  neonSqlEndpoint,
  type PgErrorFields,
} from "../neon-sql-over-http.ts";
import type { FaultPolicy } from "./faults.ts";
import { extendedQueryMessages } from "./protocol.ts";
import type { SessionLock } from "./session-lock.ts";

/**
 * Neon's SQL-over-HTTP endpoint (`POST /sql`) on PGlite: the request format, the reply and
 * the faults are `neon-sql-over-http.ts`'s; here the statement takes PGlite's one session
 * through the same lock as the wire-protocol connections, between their turns, and is parsed
 * from the raw protocol bytes PGlite answers with.
 */
export interface SqlOverHttpOptions {
  db: PGlite;
  lock: SessionLock<unknown>;
  faults: { cut: FaultPolicy; silence: FaultPolicy };
  log: (msg: string) => void;
  /** in-flight requests, so a cut-all fault can reach them */
  inFlight: Set<ServerResponse>;
}

export function sqlOverHttp(options: SqlOverHttpOptions) {
  const { db, lock } = options;
  return neonSqlEndpoint({
    faults: options.faults,
    log: options.log,
    label: "pg-server",
    inFlight: options.inFlight,
    async run(statement, gone): Promise<NeonReply | undefined> {
      const owner = {};
      const granted = await lock.acquire(owner);
      if (!granted) return undefined;
      try {
        // The client may have gone while we waited for the session: do not run its statement.
        if (gone()) return undefined;
        // The raw-stream entry point, as the wire connections use it: PGlite's parsed
        // `execProtocol` keeps a stream callback of theirs that would swallow this reply.
        const chunks: Uint8Array[] = [];
        await db.runExclusive(() =>
          db.execProtocolRawStream(extendedQueryMessages(statement.query, statement.params), {
            onRawData: (data) => chunks.push(Uint8Array.from(data)),
          }),
        );
        const messages = parseBackendMessages(Buffer.concat(chunks));
        if (db.isInTransaction()) {
          // BEGIN alone: the session must not stay in a transaction nobody will end.
          await db.exec("ROLLBACK"); // takes PGlite's query mutex itself
          return neonRefusal("transaction control is not supported over HTTP");
        }
        if (messages.error) return neonError(messages.error);
        return neonResult({
          fields: messages.fields,
          rows: messages.rows,
          ...fromCommandTag(messages.commandTag ?? ""),
        });
      } finally {
        lock.release(owner);
      }
    },
  });
}

interface BackendReply {
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
  commandTag: string | undefined;
  error: PgErrorFields | undefined;
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
      const error: PgErrorFields = {};
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
