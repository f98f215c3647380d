import pg from "pg";
import {
  type NeonReply,
  type NeonSqlEndpointShared,
  neonError,
  neonResult,
  neonSqlEndpoint,
  pgErrorFields,
  transactionControlRefusal,
} from "../neon-sql-over-http.ts";

export interface NativeSqlOverHttpOptions extends NeonSqlEndpointShared {
  pool: pg.Pool;
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
  const { pool, ...shared } = options;
  return neonSqlEndpoint({
    ...shared,
    label: "native-proxy",
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
          return transactionControlRefusal();
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
          return neonError(pgErrorFields(error));
        }
        discard = true;
        throw error;
      } finally {
        client.release(discard);
      }
    },
  });
}
