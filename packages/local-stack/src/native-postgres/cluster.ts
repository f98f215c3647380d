import { chown, mkdir, readFile, writeFile } from "node:fs/promises";
import { totalmem } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../free-port.ts";
import {
  inspectInstallation,
  POSTGRES_BIN_DIR,
  POSTGRES_MAJOR,
  STATEMENT_STATISTICS_LIBRARY,
} from "./installation.ts";
import { pathExists } from "./path-exists.ts";
import { asServerUser, isRoot, runCommand, SERVER_OS_USER } from "./run-command.ts";

export interface NativePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust auth on loopback). */
  url: string;
  port: number;
  /** The directory given to startNativePostgres (cluster in `pgdata/`, socket and log beside it). */
  dataDir: string;
  /** Stops the server (`pg_ctl stop -m fast`) and waits until it has exited. Idempotent. */
  stop(): Promise<void>;
}

export interface StartNativePostgresOptions {
  /**
   * Created when missing; an existing cluster in it is reused. As root, the server runs as the
   * `postgres` OS user: this directory is handed to that user, and its parents must let it
   * through (a fresh mkdtemp directory can be passed itself, not a child of it).
   */
  dataDir: string;
  /** Default: a free loopback port. */
  port?: number;
  /**
   * Default true. False turns fsync, synchronous commit and full-page writes off: several
   * times faster writes for throwaway test clusters, which a crash may corrupt.
   */
  durable?: boolean;
  log?: (line: string) => void;
}

/** Our settings live in their own file so a rerun can change them without editing initdb's. */
const SETTINGS_FILE = "quarry.conf";
/** A unix socket path must fit in sockaddr_un.sun_path (108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * Starts a native PostgreSQL 15 cluster in `dataDir` (initdb on first use), listening on
 * 127.0.0.1 only with trust auth, and resolves once it accepts connections.
 */
export async function startNativePostgres(
  options: StartNativePostgresOptions,
): Promise<NativePostgres> {
  const log = options.log ?? (() => {});
  const dataDir = resolve(options.dataDir);
  const clusterDir = join(dataDir, "pgdata");
  const logFile = join(dataDir, "server.log");
  const durable = options.durable ?? true;

  const installation = await inspectInstallation();
  if (!installation.server) {
    throw new Error(
      `PostgreSQL ${POSTGRES_MAJOR} is not installed in ${POSTGRES_BIN_DIR}: run \`pnpm db:native provision\` (root, Debian 12)`,
    );
  }

  await prepareDataDir(dataDir);
  const running = await runningServerPid(clusterDir);
  if (running !== null) {
    throw new Error(
      `a PostgreSQL server (pid ${running}) already runs on ${clusterDir}, probably left by an ` +
        `earlier run: stop it with \`${stopCommandLine(clusterDir)}\` and start again`,
    );
  }
  if (!(await pathExists(join(clusterDir, "PG_VERSION")))) {
    log(`initdb ${clusterDir}`);
    await serverCommand(
      "initdb",
      [
        "-D",
        clusterDir,
        "-U",
        "postgres",
        "--auth=trust",
        "--encoding=UTF8",
        "--locale=C",
        ...(durable ? [] : ["--no-sync"]),
      ],
      dataDir,
    );
    await writeAsServerUser(join(clusterDir, "pg_hba.conf"), LOOPBACK_TRUST_HBA);
    const mainConfig = join(clusterDir, "postgresql.conf");
    const config = await readFile(mainConfig, "utf8");
    await writeAsServerUser(mainConfig, `${config}\ninclude_if_exists = '${SETTINGS_FILE}'\n`);
  }

  const port = options.port ?? (await freePort());
  const socketDir = `${dataDir}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH ? dataDir : "";
  await writeAsServerUser(
    join(clusterDir, SETTINGS_FILE),
    clusterSettings({
      port,
      socketDir,
      durable,
      statementStatistics: await pathExists(STATEMENT_STATISTICS_LIBRARY),
    }),
  );

  log(
    `starting PostgreSQL ${POSTGRES_MAJOR} on 127.0.0.1:${port} (${durable ? "durable" : "fsync off"})`,
  );
  try {
    await serverCommand(
      "pg_ctl",
      ["start", "-D", clusterDir, "-l", logFile, "-w", "-t", "60", "-s"],
      dataDir,
    );
  } catch (error) {
    const serverLog = await readFile(logFile, "utf8").catch(() => "");
    const tail = serverLog.trim().split("\n").slice(-10).join("\n");
    throw new Error(`PostgreSQL did not start: ${errorMessage(error)}\n${logFile}:\n${tail}`);
  }

  let stopping: Promise<void> | null = null;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    stop() {
      stopping ??= stopCluster(clusterDir, dataDir);
      return stopping;
    },
  };
}

const LOOPBACK_TRUST_HBA = `# Written by Quarry's native-postgres: trust, and only over loopback and the private socket.
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 trust
host    all       all   127.0.0.1/32  trust
host    all       all   ::1/128       trust
`;

function clusterSettings(settings: {
  port: number;
  socketDir: string;
  durable: boolean;
  statementStatistics: boolean;
}): string {
  const lines = [
    "# Written by Quarry's native-postgres on every start; edit postgresql.auto.conf instead.",
    "listen_addresses = '127.0.0.1'",
    `port = ${settings.port}`,
    `unix_socket_directories = '${settings.socketDir.replaceAll("'", "''")}'`,
    // Tests and benchmarks open many connections at once (per-request clients from workerd).
    "max_connections = 200",
    `shared_buffers = ${sharedBuffersMb()}MB`,
  ];
  if (settings.statementStatistics) {
    // Per-statement time and calls (`pg_stat_statements`, as on Neon): the benchmarks report
    // where the database's time goes from it. Its cost is a hash lookup per statement.
    lines.push("shared_preload_libraries = 'pg_stat_statements'");
  }
  if (!settings.durable) {
    lines.push("fsync = off", "synchronous_commit = off", "full_page_writes = off");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A quarter of the machine's memory, as PostgreSQL's documentation suggests for a dedicated
 * server, within [128 MB, 2 GB]. The default 128 MB holds no HNSW graph of 100k 384-d vectors
 * (~200 MB): each search then copies most of its pages in from the OS cache, which doubled
 * E2's time at 100k rows on a 2-core VM (42 → 23 ms a statement at ef_search 1,000). The
 * memory is taken as pages are first used, not at start.
 */
export function sharedBuffersMb(memoryBytes: number = totalmem()): number {
  const quarter = Math.floor(memoryBytes / 4 / 2 ** 20);
  return Math.min(2048, Math.max(128, quarter));
}

async function stopCluster(clusterDir: string, dataDir: string): Promise<void> {
  try {
    await serverCommand(
      "pg_ctl",
      ["stop", "-D", clusterDir, "-m", "fast", "-w", "-t", "60", "-s"],
      dataDir,
    );
  } catch (error) {
    // Already stopped (by an earlier stop, or it crashed): nothing to do.
    if ((await runningServerPid(clusterDir)) === null) return;
    throw error;
  }
}

/** The postmaster's pid when a server is running on this cluster, else null. */
async function runningServerPid(clusterDir: string): Promise<number | null> {
  const pidFile = await readFile(join(clusterDir, "postmaster.pid"), "utf8").catch(() => null);
  if (pidFile === null) return null;
  const pid = Number.parseInt(pidFile.split("\n")[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    // Signal 0 only asks whether the process exists (a stale pid file survives a crash).
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : null;
  }
}

/**
 * Creates `dataDir`. As root the server runs as `postgres`, so that user must own the
 * directory (initdb creates the cluster inside it) and be able to reach it through its parents.
 */
async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  if (!isRoot()) return;
  const { uid, gid } = await serverUserIds();
  await chown(dataDir, uid, gid);
  await runCommand("runuser", ["-u", SERVER_OS_USER, "--", "test", "-w", dataDir]).catch(() => {
    throw new Error(
      `the ${SERVER_OS_USER} OS user cannot write ${dataDir}: a parent directory is closed to ` +
        "it (e.g. /root, or a mkdtemp directory: pass that directory itself as dataDir, it is " +
        "handed to that user)",
    );
  });
}

async function serverUserIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all(
    ["-u", "-g"].map(async (flag) =>
      Number.parseInt((await runCommand("id", [flag, SERVER_OS_USER])).stdout, 10),
    ),
  );
  if (uid === undefined || gid === undefined || Number.isNaN(uid) || Number.isNaN(gid)) {
    throw new Error(
      `the ${SERVER_OS_USER} OS user does not exist: is postgresql-${POSTGRES_MAJOR} installed?`,
    );
  }
  return { uid, gid };
}

/** Runs a server binary as the server user; `cwd` must be reachable by that user. */
function serverCommand(binary: string, args: readonly string[], cwd: string) {
  const [program, argv] = asServerUser(join(POSTGRES_BIN_DIR, binary), args);
  return runCommand(program, argv, { cwd });
}

/** Files the server reads are written by us, then handed to the server user (when root). */
async function writeAsServerUser(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  if (isRoot()) {
    const { uid, gid } = await serverUserIds();
    await chown(path, uid, gid);
  }
}

function stopCommandLine(clusterDir: string): string {
  const pgCtl = `${join(POSTGRES_BIN_DIR, "pg_ctl")} stop -D ${clusterDir} -m fast`;
  return isRoot() ? `runuser -u ${SERVER_OS_USER} -- ${pgCtl}` : pgCtl;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
