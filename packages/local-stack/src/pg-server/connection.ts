import type { PGlite } from "@electric-sql/pglite";
import type { FaultPolicy } from "./faults.ts";
import { FrontendFramer, type FrontendMessage, ProtocolError } from "./framer.ts";
import { type LongTurn, type LongTurnReporter, statementOf } from "./long-turns.ts";
import {
  copyFailMessage,
  errorResponse,
  MSG_TERMINATE,
  queryMessage,
  syncMessage,
  TX_IDLE,
} from "./protocol.ts";
import { ReplyTracker } from "./reply-tracker.ts";
import type { SessionLock } from "./session-lock.ts";
import type { Transport, TransportSink } from "./transport.ts";

export interface PgConnectionOptions {
  db: PGlite;
  transport: Transport;
  lock: SessionLock<PgConnection>;
  /** How long the lock may be held with nothing to do before we drop the client. */
  idleInTransactionMs: number;
  log: (msg: string) => void;
  onClosed: (connection: PgConnection) => void;
  /** injected faults: connections to cut, connections to silence */
  faults?: { cut: FaultPolicy; silence: FaultPolicy };
  /** reports turns on the session that took long */
  longTurns?: LongTurnReporter;
}

// Single byte 'N': "no SSL / no GSS encryption here, carry on in plaintext".
const DECLINE_ENCRYPTION = Buffer.from("N");

let nextId = 1;

/**
 * One client connection, multiplexed onto PGlite's single session.
 *
 * Messages are processed strictly in order by one async loop per connection, which
 * serialises everything a connection does — including its own teardown, so a
 * disconnect in the middle of a query restores the session only after PGlite has
 * finished answering it.
 */
export class PgConnection implements TransportSink {
  readonly id = nextId++;
  /** Resolves once the connection has released the session and closed its transport. */
  readonly closed: Promise<void>;

  private readonly framer = new FrontendFramer();
  private readonly reply = new ReplyTracker();
  private readonly inbox: FrontendMessage[] = [];
  private running = false;
  private closing = false;
  private closeHow: "end" | "destroy" = "end";
  private tornDown = false;
  /** Messages executed so far (the startup message is the first). */
  private handled = 0;
  /** injected fault: reads nothing more, answers nothing more, until the client leaves */
  private silenced = false;
  /** True once we sent PGlite anything since acquiring the lock. */
  private touchedSession = false;
  /** This connection's current turn on the session, timed for `longTurns`. */
  private turn: LongTurn | undefined;
  /** The SQL of the last Parse or Query message, which the messages after it run. */
  private statement: string | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private resolveClosed!: () => void;

  constructor(private readonly opts: PgConnectionOptions) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.log(`open (${opts.transport.label})`);
  }

  receive(chunk: Uint8Array): void {
    if (this.closing || this.silenced) return;
    // Activity, even a partial message, means the client is not stuck.
    this.clearIdleTimer();
    try {
      this.inbox.push(...this.framer.push(chunk));
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      this.opts.transport.write(errorResponse("FATAL", "08P01", err.message));
      this.close(`protocol violation: ${err.message}`);
      return;
    }
    this.kick();
  }

  close(reason: string, how: "end" | "destroy" = "end"): void {
    if (how === "destroy") this.closeHow = "destroy";
    if (this.closing) return;
    this.closing = true;
    this.log(`closing: ${reason}`);
    // If we are still queued for the session, stop waiting; the loop then tears down.
    this.opts.lock.cancel(this);
    this.kick();
  }

  /**
   * Fault injection: destroys the client's socket at once (the client sees its connection
   * drop), then tears down as for any disconnect once the message in flight has finished.
   */
  cut(reason: string): boolean {
    if (this.closing) return false;
    this.opts.transport.destroy();
    this.close(reason, "destroy");
    return true;
  }

  private log(msg: string): void {
    this.opts.log(`[pg-server #${this.id}] ${msg}`);
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        if (this.closing || this.silenced) break;
        const message = this.inbox.shift();
        if (!message) break;
        await this.handle(message);
        this.handled++;
        const faults = this.opts.faults;
        if (faults?.cut.armed && faults.cut.strikes(this.handled)) {
          if (this.cut(`injected fault after message ${this.handled}`)) faults.cut.struck++;
        }
        if (faults?.silence.armed && faults.silence.strikes(this.handled)) {
          this.silenced = true;
          faults.silence.struck++;
          this.log(`silenced (injected fault after message ${this.handled})`);
        }
      }
    } catch (err) {
      this.log(`failed: ${err instanceof Error ? err.message : String(err)}`);
      this.closing = true;
    }
    if (this.closing) await this.teardown();
    else this.armIdleTimer();
    this.running = false;
  }

  private async handle(message: FrontendMessage): Promise<void> {
    switch (message.kind) {
      case "ssl-request":
      case "gssenc-request":
        this.opts.transport.write(DECLINE_ENCRYPTION);
        return;
      case "cancel-request":
        // PGlite has no separate backend process to interrupt, so there is nothing
        // to cancel. Postgres answers a CancelRequest by just closing the socket.
        this.close("cancel request (unsupported, ignored)");
        return;
      case "startup":
        await this.execute(message.bytes);
        return;
      case "typed":
        // Terminate would shut PGlite's one session down for everybody. The Neon
        // driver also relies on the server closing the socket here.
        if (message.type === MSG_TERMINATE) this.close("terminate");
        else await this.execute(message.bytes);
        return;
    }
  }

  /** Runs one message on the session, streaming the reply straight to the client. */
  private async execute(bytes: Uint8Array): Promise<void> {
    const { lock, transport } = this.opts;
    const granted = await lock.acquire(this);
    if (!granted || this.closing) return;
    this.touchedSession = true;
    this.turn ??= this.opts.longTurns?.begin(`connection #${this.id}`);
    const parsed = statementOf(bytes);
    this.statement = parsed ?? this.statement;
    const run = () => this.exec(bytes, (data) => transport.write(data));
    await (this.turn ? this.turn.message(this.statement, run, parsed !== undefined) : run());
    // ReadyForQuery only ends the reply to Sync, Query, CopyDone/Fail or startup.
    // 'I' means the session is back to neutral and can serve someone else; 'T'/'E'
    // (in a transaction) or no ReadyForQuery at all (between Parse/Bind/Execute and
    // Sync, mid COPY, mid authentication) means the session is still ours.
    if (this.reply.readyStatus === TX_IDLE) this.releaseSession();
  }

  private exec(bytes: Uint8Array, forward?: (data: Uint8Array) => void): Promise<void> {
    const { db } = this.opts;
    return db.runExclusive(() =>
      db.execProtocolRawStream(bytes, {
        onRawData: (data) => {
          this.reply.feed(data);
          forward?.(data);
        },
      }),
    );
  }

  private releaseSession(): void {
    this.touchedSession = false;
    this.turn?.end();
    this.turn = undefined;
    this.opts.lock.release(this);
  }

  /**
   * Puts the shared session back to idle after this client left it mid-flight,
   * aborting (never committing) whatever the client had started — as a real
   * backend does when its client disconnects.
   */
  private async restoreSession(): Promise<void> {
    if (this.reply.inCopyIn) {
      this.log("restore: aborting COPY");
      await this.exec(copyFailMessage("client disconnected"));
    }
    if (this.reply.readyStatus === undefined) {
      if (this.reply.skippingUntilSync) {
        // After an error the backend discards everything up to Sync (a ROLLBACK
        // query would be swallowed too); the failed work is already aborted.
        this.log("restore: sync after error");
        await this.exec(syncMessage());
      } else {
        // Mid extended-protocol batch. Sync would COMMIT the implicit transaction
        // holding the client's half-finished work; a Query is allowed here and
        // ROLLBACK aborts it (explicit BEGIN or not), ending the batch as well.
        this.log("restore: rollback mid-batch");
        await this.exec(queryMessage("ROLLBACK"));
      }
    }
    const status = this.reply.readyStatus;
    if (this.opts.db.isInTransaction() || (status !== undefined && status !== TX_IDLE)) {
      this.log("restore: rollback");
      await this.exec(queryMessage("ROLLBACK"));
    }
  }

  private async teardown(): Promise<void> {
    if (this.tornDown) return;
    this.tornDown = true;
    this.clearIdleTimer();
    this.inbox.length = 0;
    const { lock, transport } = this.opts;
    lock.cancel(this);
    if (lock.owner === this) {
      if (this.touchedSession) {
        try {
          await this.restoreSession();
        } catch (err) {
          // Most likely the caller closed PGlite under us; nothing left to restore.
          this.log(`restore failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      this.releaseSession();
    }
    if (this.closeHow === "destroy") transport.destroy();
    else transport.end();
    this.log("closed");
    this.opts.onClosed(this);
    this.resolveClosed();
  }

  private armIdleTimer(): void {
    const { idleInTransactionMs, lock } = this.opts;
    if (idleInTransactionMs <= 0 || lock.owner !== this) return;
    this.clearIdleTimer();
    this.idleTimer = setTimeout(() => this.onIdleTimeout(), idleInTransactionMs);
    // A forgotten client must not keep the process alive on its own.
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private onIdleTimeout(): void {
    this.idleTimer = undefined;
    if (this.closing || this.running || this.opts.lock.owner !== this) return;
    const ms = this.opts.idleInTransactionMs;
    // Same SQLSTATE and wording as Postgres' idle_in_transaction_session_timeout.
    this.opts.transport.write(
      errorResponse(
        "FATAL",
        "25P03",
        `terminating connection due to idle-in-transaction timeout (${ms} ms)`,
      ),
    );
    this.close(`held the session idle for ${ms} ms`);
  }
}
