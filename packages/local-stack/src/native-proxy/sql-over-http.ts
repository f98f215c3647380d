import type { ServerResponse } from "node:http";
import pg from "pg";
import {
  ERROR_FIELDS,
  type NeonReply,
  neonError,
  neonRefusal,
  neonResult,
  neonSqlEndpoint,
  type PgErrorFields,
} from "../neon-sql-over-http.ts";
import type { FaultPolicy } from "../pg-server/faults.ts";

export interface NativeSqlOverHttpOptions {
  pool: pg.Pool;
  faults: { cut: FaultPolicy; silence: FaultPolicy };
  log: (msg: string) => void;
  inFlight: Set<ServerResponse>;
}

/** Every value as the text Postgres sent: the driver on the other side parses them itself. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/**
 * Neon's SQL-over-HTTP endpoint (`POST /sql`) in front of a native PostgreSQL: the request
 * format, the reply and the faults are `neon-sql-over-http.ts`'s; here each statement runs on
 * a pooled connection of the real server, over the extended protocol (one statement, its own
 * implicit transaction, as on Neon), with text parameters and raw text results.
 */
export function nativeSqlOverHttp(options: NativeSqlOverHttpOptions) {
  const { pool } = options;
  return neonSqlEndpoint({
    faults: options.faults,
    log: options.log,
    label: "native-proxy",
    inFlight: options.inFlight,
    async run(statement, gone): Promise<NeonReply | undefined> {
      const client = await pool.connect();
      // A connection left in a transaction, or in an unknown state, is closed, not reused.
      let discard = false;
      try {
        if (gone()) return undefined;
        const result = await client.query({
          text: statement.query,
          values: statement.params,
          rowMode: "array",
          types: RAW_TEXT,
          // Extended protocol even without parameters: one statement only, as on Neon.
          queryMode: "extended",
        } as pg.QueryArrayConfig);
        if (client.getTransactionStatus() !== "I") {
          // BEGIN alone: closing the connection rolls back what nobody would end.
          discard = true;
          return neonRefusal("transaction control is not supported over HTTP");
        }
        return neonResult({
          fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
          rows: result.rows as (string | null)[][],
          command: result.command,
          rowCount: result.rowCount,
        });
      } catch (error) {
        if (error instanceof pg.DatabaseError) {
          if (client.getTransactionStatus() !== "I") discard = true;
          return neonError(errorFields(error));
        }
        discard = true;
        throw error;
      } finally {
        client.release(discard);
      }
    },
  });
}

function errorFields(error: pg.DatabaseError): PgErrorFields {
  const fields: PgErrorFields = { message: error.message };
  for (const name of ERROR_FIELDS) {
    const value = error[name];
    if (typeof value === "string") fields[name] = value;
  }
  return fields;
}
