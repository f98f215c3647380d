/**
 * A reply's `Server-Timing` header (W3C Server Timing): where the request's time went, as a
 * client, a browser's network panel or `pnpm bench` can read it without access to the server.
 *
 * - `db`: the database round trips, summed (statements sent together overlap, so the sum may
 *   exceed the wall time they took), with their count;
 * - `app`: from the moment the request reached the app until its reply was ready (a stream:
 *   until its headers). What the client measured beyond `app` is the network and the
 *   platform's proxy.
 *
 * The Workers clock ticks in whole milliseconds (measured under wrangler dev), so the
 * figures do too. A deployed Worker's clock stands still while its code runs (Cloudflare's
 * Spectre mitigation) and moves only across I/O, so there `app` counts the waits and not the
 * CPU; under wrangler dev (workerd locally) the clock runs, and `app` counts both.
 */
export class ServerTiming {
  private readonly started = performance.now();
  private databaseMs = 0;
  private roundTrips = 0;

  /** one database round trip of `ms` */
  readonly database = (ms: number): void => {
    this.databaseMs += ms;
    this.roundTrips += 1;
  };

  header(): string {
    const app = performance.now() - this.started;
    const trips = this.roundTrips === 1 ? "1 round trip" : `${this.roundTrips} round trips`;
    return `db;dur=${duration(this.databaseMs)};desc="${trips}", app;dur=${duration(app)}`;
  }
}

const duration = (ms: number) => (Math.round(ms * 100) / 100).toString();
