import { benches } from "./benches/index.ts";
import { type Prepared, parseScale } from "./harness/bench.ts";
import { BenchEngineError } from "./harness/engine.ts";
import { createHttpClient, HttpError } from "./harness/http.ts";
import { waitForIndexBuilds } from "./harness/quiet-database.ts";
import { createReporter } from "./harness/report.ts";
import { openTarget, type Target, TargetConfigError } from "./harness/target.ts";
import { measureMachine, measurePostgres } from "./harness/yardstick.ts";

/**
 * `pnpm bench <name>` (docs/architecture.md#benchmarks): runs one benchmark against its own local
 * stack (or the one `BASE` names), progress on stderr, one JSON object on the last line of stdout.
 * Exit codes: 0 done, 1 the benchmark failed, 2 usage, 130 interrupted.
 */
function usage(problem?: string): never {
  const names = Object.values(benches).map((b) => `  ${b.name.padEnd(10)} ${b.summary}`);
  if (problem) process.stderr.write(`${problem}\n\n`);
  process.stderr.write(
    [
      "usage: pnpm bench <name>",
      "",
      "benchmarks:",
      ...names,
      "",
      "environment:",
      "  BENCH_SCALE   size factor, e.g. 0.1 for a quick run (default 1: the issue's size)",
      "  BASE          run against this running stack instead of starting one",
      "  ADMIN_TOKEN   its admin token (required with BASE)",
      "  DATABASE_URL  its Postgres, for raw-SQL baselines and query plans (optional with BASE);",
      "                without BASE: the native server to start the stack on (a throwaway database)",
      "  BENCH_ENGINE  pglite (default) or native: the engine of the stack a benchmark starts;",
      "                native without DATABASE_URL provisions and starts a cluster for the run",
      "  LOAD_CLIENTS  load: concurrent clients (default 16)",
      "  LOAD_SECONDS  load: duration in seconds (default 60 × BENCH_SCALE)",
      "  LOAD_WINDOW_SECONDS  load: the timeline's window (default 10)",
      "  WRITERS          writers: concurrent writers (default 8)",
      "  WRITERS_SECONDS  writers: seconds per phase (default 60 × BENCH_SCALE)",
      "  REBUILD_MINUTES  rebuild: how long to search for the rebuild to end (default 15)",
      "",
    ].join("\n"),
  );
  process.exit(2);
}

const name = process.argv[2];
if (!name || name === "--help" || name === "-h") usage();
const bench = Object.hasOwn(benches, name) ? benches[name] : undefined;
if (!bench) usage(`unknown benchmark '${name}'`);
const scale = parseScale(process.env.BENCH_SCALE);
if (scale === undefined)
  usage(`BENCH_SCALE must be a number in (0, 10], got '${process.env.BENCH_SCALE}'`);

const reporter = createReporter(bench.name, scale);
const { progress } = reporter;
let target: Target | undefined;

// On SIGINT/SIGTERM: stop the stack (wrangler runs detached, so nobody else would) and exit.
// A stack still starting is stopped as soon as it is up; a second signal exits at once.
let interrupted = false;
const stopAndExit = () =>
  void (target?.close() ?? Promise.resolve()).finally(() => process.exit(130));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    progress(`${signal}: stopping`);
    if (target) stopAndExit();
  });
}

let exitCode = 0;
let prepared: Prepared | undefined;
try {
  // Before anything else runs: the machine's own speed, to compare runs across machines.
  const machine = await measureMachine();
  prepared = await bench.prepare?.(progress);
  target = await openTarget(process.env, progress, prepared?.stack);
  if (interrupted) stopAndExit();
  else {
    // An earlier run's graph build still running takes a core from this one: waited out first.
    const url = target.databaseUrl;
    const earlierBuilds = url ? await waitForIndexBuilds(url, progress) : null;
    const postgres = url
      ? { ...(await measurePostgres(url)), earlier_index_builds: earlierBuilds }
      : null;
    const yardstick = { ...machine, postgres };
    progress(`yardstick: ${JSON.stringify(yardstick)}`);
    const http = createHttpClient(target.baseUrl);
    try {
      const result = await bench.run({ target, http, scale, progress });
      if (!interrupted) {
        reporter.emit({ ...result, engine: target.engine, via: target.via, yardstick });
      }
    } finally {
      http.close();
    }
  }
} catch (error) {
  if (error instanceof TargetConfigError || error instanceof BenchEngineError) usage(error.message);
  exitCode = 1;
  if (interrupted) {
    // the stack is being stopped under the benchmark: its errors say nothing
  } else if (error instanceof HttpError) {
    progress(`failed: ${error.method} ${error.path} answered ${error.status}`);
    progress(`error body: ${error.responseText.slice(0, 4000)}`);
  } else {
    progress(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
if (!interrupted) {
  // A failed run keeps its DATA_DIR: the wrangler log there is the first thing to read.
  await target?.close({ keepData: exitCode !== 0 });
  await prepared?.close();
  process.exit(exitCode);
}
