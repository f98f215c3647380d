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
    async run(statement, left): Promise<NeonReply | undefined> {
      const client = await pool.connect();
      // A connection left in a transaction, or in an unknown state, is closed, not reused.
      let discard = false;
      // The caller gave up (its deadline, a dropped connection): the statement is cancelled,
      // or it would hold this connection, and whatever it locked, for as long as it runs.
      // The connection goes back to the pool only once the cancel was delivered, so that it
      // never strikes the next request's statement.
      let cancelling: Promise<void> | undefined;
      const cancel = () => {
        cancelling = cancelBackend(pool, client, shared.log);
      };
      left.addEventListener("abort", cancel, { once: true });
      try {
        if (left.aborted) return undefined;
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
        left.removeEventListener("abort", cancel);
        await cancelling;
        client.release(discard);
      }
    },
  });
}

const CANCEL_TIMEOUT_MS = 5_000;

/**
 * Asks the server to cancel what `client`'s backend is running (`pg_cancel_backend`, on a
 * connection of its own: the pool may have none to spare). The statement then fails with
 * 57014 and the connection goes back to the pool idle.
 */
async function cancelBackend(
  pool: pg.Pool,
  client: pg.PoolClient,
  log: (msg: string) => void,
): Promise<void> {
  const pid = (client as pg.PoolClient & { processID?: number }).processID;
  if (!pid) return;
  // Bounded: the pooled connection waits for this before it serves anyone again.
  const canceller = new pg.Client({
    ...pool.options,
    connectionTimeoutMillis: CANCEL_TIMEOUT_MS,
    query_timeout: CANCEL_TIMEOUT_MS,
  });
  canceller.on("error", () => {});
  try {
    await canceller.connect();
    await canceller.query("SELECT pg_cancel_backend($1)", [pid]);
    log(`[native-proxy http] cancelled the statement of backend ${pid}: its caller left`);
  } catch (error) {
    log(`[native-proxy http] could not cancel backend ${pid}: ${(error as Error).message}`);
  } finally {
    await canceller.end().catch(() => {});
  }
}
