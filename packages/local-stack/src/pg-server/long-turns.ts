import { MSG_PARSE, MSG_QUERY } from "./protocol.ts";
import type { SessionProfile } from "./session-profile.ts";

/**
 * Reports every turn on PGlite's one session that lasted `thresholdMs` or longer: while one
 * client holds the session every other request waits, so a turn of seconds is the first thing
 * to look for when the embedded stack stops answering. A turn runs from the session's grant to
 * its release; the report names the connection, how many messages it sent and the statement
 * that took longest, so a slow statement and a long transaction of quick ones tell apart.
 */
export interface LongTurnOptions {
  /** a turn this long or longer is reported when it ends (default 1000 ms) */
  thresholdMs?: number;
  /** a turn still open after this long is reported while it lasts, again each time as long (10 s) */
  stillHeldMs?: number;
  log: (line: string) => void;
  /** every message's time is added to its statement's totals here too (session-profile.ts) */
  profile?: SessionProfile;
}

export class LongTurnReporter {
  readonly thresholdMs: number;
  readonly stillHeldMs: number;
  private readonly open = new Set<LongTurn>();
  /**
   * One timer for the reporter's life, not one per turn: turns come and go with every statement.
   * A turn that never ends (a client that keeps a transaction open) is the worst kind: it is
   * reported while it lasts, not only after.
   */
  private readonly watch: NodeJS.Timeout;

  constructor(private readonly options: LongTurnOptions) {
    this.thresholdMs = options.thresholdMs ?? 1000;
    this.stillHeldMs = options.stillHeldMs ?? 10_000;
    this.watch = setInterval(() => {
      for (const held of this.open) held.reportIfStillHeld(this.stillHeldMs);
    }, this.stillHeldMs / 2).unref();
  }

  /** A new turn of `holder` (a connection's or a statement's label), starting now. */
  begin(holder: string): LongTurn {
    const turn = new LongTurn(
      holder,
      this.thresholdMs,
      this.options.log,
      () => this.open.delete(turn),
      this.options.profile,
    );
    this.open.add(turn);
    return turn;
  }

  /** Stops reporting turns still open (the server closed). */
  close(): void {
    clearInterval(this.watch);
  }
}

export class LongTurn {
  private readonly started = performance.now();
  private messages = 0;
  /** the statement of the turn's latest message */
  private latest: string | undefined;
  private reportedAtMs = 0;
  private slowest: { ms: number; statement: string | undefined } = { ms: 0, statement: undefined };

  constructor(
    private readonly holder: string,
    private readonly thresholdMs: number,
    private readonly log: (line: string) => void,
    private readonly ended: () => void,
    private readonly profile: SessionProfile | undefined,
  ) {}

  /**
   * Times one message of the turn; `statement` is the SQL it runs, when known, and `starts`
   * says the message begins a run of it (a Query or Parse) rather than carrying one on.
   */
  async message<T>(
    statement: string | undefined,
    work: () => Promise<T>,
    starts = true,
  ): Promise<T> {
    const started = performance.now();
    this.latest = statement;
    try {
      return await work();
    } finally {
      this.messages++;
      const ms = performance.now() - started;
      if (ms > this.slowest.ms) this.slowest = { ms, statement };
      this.profile?.record(statement, ms, starts);
    }
  }

  /** Ends the turn (the session is released), reporting it if it was long. */
  end(): void {
    this.ended();
    const ms = performance.now() - this.started;
    if (ms < this.thresholdMs) return;
    const slowest = this.slowest.statement
      ? `; slowest message ${Math.round(this.slowest.ms)} ms: ${abbreviate(this.slowest.statement)}`
      : "";
    this.log(
      `[session] ${this.holder} held the session ${Math.round(ms)} ms (${this.messages} messages)${slowest}`,
    );
  }

  reportIfStillHeld(everyMs: number): void {
    const ms = performance.now() - this.started;
    if (ms - this.reportedAtMs < everyMs) return;
    this.reportedAtMs = ms;
    // (PGlite runs a statement on the event loop's thread, so this is read between messages.)
    const latest = this.latest ? `; latest statement: ${abbreviate(this.latest)}` : "";
    this.log(
      `[session] ${this.holder} has held the session ${Math.round(ms)} ms so far (${this.messages} messages)${latest}`,
    );
  }
}

/**
 * The SQL text of a frontend Query ('Q') or Parse ('P') message, whose bodies start with it (a
 * Parse after the statement's name); undefined for any other message.
 */
export function statementOf(message: Uint8Array): string | undefined {
  const type = message[0];
  if (type !== MSG_QUERY && type !== MSG_PARSE) return undefined;
  let start = 5;
  if (type === MSG_PARSE) start = message.indexOf(0, start) + 1;
  if (start <= 0) return undefined;
  const end = message.indexOf(0, start);
  return Buffer.from(message.subarray(start, end < 0 ? message.length : end)).toString("utf8");
}

function abbreviate(statement: string): string {
  const oneLine = statement.replace(/\s+/g, " ").trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine;
}
