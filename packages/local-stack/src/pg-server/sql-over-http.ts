import type { PGlite } from "@electric-sql/pglite";
import type {
  CommandCompleteMessage,
  DatabaseError,
  DataRowMessage,
  RowDescriptionMessage,
} from "pg-protocol/dist/messages.js";
import { Parser } from "pg-protocol/dist/parser.js";
import {
  fromCommandTag,
  type NeonReply,
  type NeonSqlEndpointShared,
  neonError,
  neonResult,
  neonSqlEndpoint,
  type PgErrorFields,
  pgErrorFields,
  transactionControlRefusal,
} from "../neon-sql-over-http.ts";
import type { LongTurnReporter } from "./long-turns.ts";
import { extendedQueryMessages } from "./protocol.ts";
import type { SessionLock } from "./session-lock.ts";

/**
 * Neon's SQL-over-HTTP endpoint (`POST /sql`) on PGlite: the request format, the reply and
 * the faults are `neon-sql-over-http.ts`'s; here the statement takes PGlite's one session
 * through the same lock as the wire-protocol connections, between their turns, and is parsed
 * from the raw protocol bytes PGlite answers with.
 */
export interface SqlOverHttpOptions extends NeonSqlEndpointShared {
  db: PGlite;
  lock: SessionLock<unknown>;
  longTurns?: LongTurnReporter;
}

export function sqlOverHttp(options: SqlOverHttpOptions) {
  const { db, lock, longTurns, ...shared } = options;
  return neonSqlEndpoint({
    ...shared,
    label: "pg-server",
    async run(statement, left): Promise<NeonReply | undefined> {
      const owner = {};
      const granted = await lock.acquire(owner);
      if (!granted) return undefined;
      const turn = longTurns?.begin("an SQL-over-HTTP statement");
      try {
        // The client may have gone while we waited for the session: do not run its statement.
        if (left.aborted) return undefined;
        // The raw-stream entry point, as the wire connections use it: PGlite's parsed
        // `execProtocol` keeps a stream callback of theirs that would swallow this reply.
        const chunks: Uint8Array[] = [];
        const run = () =>
          db.runExclusive(() =>
            db.execProtocolRawStream(extendedQueryMessages(statement.query, statement.params), {
              onRawData: (data) => chunks.push(Uint8Array.from(data)),
            }),
          );
        await (turn ? turn.message(statement.query, run) : run());
        const messages = parseBackendMessages(Buffer.concat(chunks));
        if (db.isInTransaction()) {
          // BEGIN alone: the session must not stay in a transaction nobody will end.
          await db.exec("ROLLBACK"); // takes PGlite's query mutex itself
          return transactionControlRefusal();
        }
        if (messages.error) return neonError(messages.error);
        return neonResult({
          fields: messages.fields,
          rows: messages.rows,
          ...fromCommandTag(messages.commandTag ?? ""),
        });
      } finally {
        turn?.end();
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

/**
 * The backend messages of one statement's reply (row description, rows, tag, error), read
 * by pg-protocol's parser, the one `pg` uses. (Its error's `severity` is the `S` field,
 * which for PGlite's untranslated messages is the same as the `V` one.)
 */
function parseBackendMessages(bytes: Buffer): BackendReply {
  const reply: BackendReply = { fields: [], rows: [], commandTag: undefined, error: undefined };
  new Parser().parse(bytes, (message) => {
    switch (message.name) {
      case "rowDescription":
        reply.fields = (message as RowDescriptionMessage).fields.map((field) => ({
          name: field.name,
          dataTypeID: field.dataTypeID,
        }));
        break;
      case "dataRow":
        reply.rows.push((message as DataRowMessage).fields as (string | null)[]);
        break;
      case "commandComplete":
        reply.commandTag = (message as CommandCompleteMessage).text;
        break;
      case "error":
        reply.error ??= pgErrorFields(message as DatabaseError);
        break;
    }
  });
  return reply;
}
