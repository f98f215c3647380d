import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { aptEnvironment, aptInstall } from "./apt-install.ts";
import { mainArchiveAddress, readAptSourceFiles } from "./apt-sources.ts";
import {
  controlDefaultVersion,
  inspectInstallation,
  isSufficientPgvector,
  MINIMUM_PGVECTOR,
  PG_CONFIG,
  POSTGRES_MAJOR,
} from "./installation.ts";
import { pathExists } from "./path-exists.ts";
import { isRoot, runCommand } from "./run-command.ts";

/** Debian's next release: its pgvector (0.8.x) builds against bookworm's PostgreSQL 15. */
export const PGVECTOR_SOURCE_SUITE = "trixie";
export const PGVECTOR_SOURCE_LIST = "/etc/apt/sources.list.d/quarry-pgvector-src.sources";
const ARCHIVE_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg";

const SERVER_PACKAGES = [`postgresql-${POSTGRES_MAJOR}`, `postgresql-server-dev-${POSTGRES_MAJOR}`];
const BUILD_PACKAGES = ["make", "gcc"];

/** Provisioning cannot run here (not root, no apt, not Debian): the message says what to do. */
export class NativePostgresUnavailableError extends Error {
  override name = "NativePostgresUnavailableError";
}

/**
 * Installs PostgreSQL 15 from the distribution and pgvector >= 0.8 built from Debian trixie's
 * source package. Idempotent: when both are there it only reads two files and returns.
 */
export async function provisionNativePostgres(
  log: (line: string) => void = () => {},
): Promise<void> {
  const before = await inspectInstallation();
  if (before.server && isSufficientPgvector(before.pgvector)) {
    log(`PostgreSQL ${POSTGRES_MAJOR} and pgvector ${before.pgvector} are installed`);
    return;
  }
  await assertCanProvision(before.server ? "pgvector >= 0.8" : `PostgreSQL ${POSTGRES_MAJOR}`);

  if (!before.server) await aptInstallOnBookworm([...SERVER_PACKAGES, ...BUILD_PACKAGES], log);
  if (!isSufficientPgvector(before.pgvector)) {
    const workDir = await mkdtemp(join(tmpdir(), "quarry-pgvector-"));
    try {
      await buildPgvectorFromDebianSource({ workDir, log });
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  const after = await inspectInstallation();
  if (!after.server || !isSufficientPgvector(after.pgvector)) {
    throw new Error(
      `provisioning finished but PostgreSQL ${POSTGRES_MAJOR} ${after.server ? "is" : "is not"} installed and pgvector is ${after.pgvector ?? "missing"}`,
    );
  }
  log(`PostgreSQL ${POSTGRES_MAJOR} and pgvector ${after.pgvector} are ready`);
}

/**
 * Downloads Debian trixie's pgvector source package into `workDir`, builds it against
 * PostgreSQL 15 and installs it (under `destDir` when given: a staged install that leaves the
 * machine's extension alone). Resolves with the version built.
 */
export async function buildPgvectorFromDebianSource(options: {
  workDir: string;
  destDir?: string;
  log?: (line: string) => void;
}): Promise<string> {
  const log = options.log ?? (() => {});
  await assertCanProvision("pgvector >= 0.8");
  await ensureBuildTools(log);
  await addPgvectorSourceList(log);

  log(`apt-get source pgvector/${PGVECTOR_SOURCE_SUITE}`);
  await runCommand("apt-get", ["source", "--download-only", `pgvector/${PGVECTOR_SOURCE_SUITE}`], {
    cwd: options.workDir,
    env: aptEnvironment(),
  });
  const tarball = (await readdir(options.workDir)).find((name) =>
    /^pgvector_[^/]+\.orig\.tar\.(gz|xz|bz2)$/.test(name),
  );
  if (!tarball) throw new Error(`no pgvector orig tarball was downloaded into ${options.workDir}`);

  const sourceDir = join(options.workDir, "pgvector");
  await mkdir(sourceDir);
  await runCommand("tar", [
    "-xf",
    join(options.workDir, tarball),
    "-C",
    sourceDir,
    "--strip-components=1",
  ]);
  const version = controlDefaultVersion(await readFile(join(sourceDir, "vector.control"), "utf8"));
  if (!version || !isSufficientPgvector(version)) {
    throw new Error(
      `Debian ${PGVECTOR_SOURCE_SUITE} carries pgvector ${version}, not >= ${MINIMUM_PGVECTOR.join(".")}`,
    );
  }

  log(`building pgvector ${version} against PostgreSQL ${POSTGRES_MAJOR}`);
  // OPTFLAGS="" drops pgvector's default -march=native: the build must run on any CPU of the
  // fleet, not only the one that compiled it.
  const makeVariables = ["OPTFLAGS=", `PG_CONFIG=${PG_CONFIG}`];
  await runCommand("make", [`-j${availableParallelism()}`, ...makeVariables], { cwd: sourceDir });
  const destination = options.destDir ? [`DESTDIR=${options.destDir}`] : [];
  await runCommand("make", ["install", ...makeVariables, ...destination], { cwd: sourceDir });
  log(`pgvector ${version} installed${options.destDir ? ` under ${options.destDir}` : ""}`);
  return version;
}

async function assertCanProvision(missing: string): Promise<void> {
  const alternatives =
    "Or run PostgreSQL with pgvector in Docker (docker run -p 5432:5432 -e POSTGRES_PASSWORD=… " +
    "pgvector/pgvector:pg17) or use a Neon database, and set DATABASE_URL to it.";
  const hasAptGet = await runCommand("apt-get", ["--version"]).then(
    () => true,
    () => false,
  );
  const osRelease = await readFile("/etc/os-release", "utf8").catch(() => "");
  const isDebian = /^ID="?debian"?$/m.test(osRelease);
  if (process.platform !== "linux" || !hasAptGet || !isDebian) {
    throw new NativePostgresUnavailableError(
      `${missing} is missing, and provisioning it needs Debian 12 (apt-get and Debian's archive). ` +
        `Install PostgreSQL ${POSTGRES_MAJOR}+ with pgvector >= ${MINIMUM_PGVECTOR.join(".")} ` +
        `from your system's packages (e.g. postgresql-${POSTGRES_MAJOR}-pgvector from the ` +
        `PostgreSQL project's apt repository). ${alternatives}`,
    );
  }
  if (!isRoot()) {
    throw new NativePostgresUnavailableError(
      `${missing} is missing, and installing it needs root: run \`pnpm db:native provision\` as root, ` +
        `or install postgresql-${POSTGRES_MAJOR}, postgresql-server-dev-${POSTGRES_MAJOR}, make ` +
        `and gcc with apt-get and build pgvector >= ${MINIMUM_PGVECTOR.join(".")}. ${alternatives}`,
    );
  }
}

async function ensureBuildTools(log: (line: string) => void): Promise<void> {
  const present = await Promise.all(
    ["make", "gcc"].map((tool) =>
      runCommand(tool, ["--version"]).then(
        () => true,
        () => false,
      ),
    ),
  );
  // pg_config alone is in the client package: the headers pgvector compiles against are not.
  const hasServerHeaders = await runCommand(PG_CONFIG, ["--includedir-server"])
    .then(({ stdout }) => pathExists(join(stdout.trim(), "postgres.h")))
    .catch(() => false);
  if (present.every(Boolean) && hasServerHeaders) return;
  await aptInstallOnBookworm([...SERVER_PACKAGES, ...BUILD_PACKAGES], log);
}

/** `aptInstall` for Debian 12's PostgreSQL: an install that still fails says where to go instead. */
function aptInstallOnBookworm(packages: readonly string[], log: (line: string) => void) {
  return aptInstall(packages, log, (error) => {
    // PostgreSQL 15 is Debian 12's: later releases ship another major version.
    return new Error(
      `${error instanceof Error ? error.message : error}\n` +
        `(postgresql-${POSTGRES_MAJOR} is in Debian 12 "bookworm"; on another release use Docker or Neon, see README)`,
    );
  });
}

/**
 * A deb-src entry for trixie on the archive the machine already uses (read from its sources,
 * never written down here: mirrors differ between machines and clouds). Only source indexes
 * come from it, so no trixie binary can replace a bookworm one on upgrade.
 */
async function addPgvectorSourceList(log: (line: string) => void): Promise<void> {
  const codename = /^VERSION_CODENAME=(\S+)$/m.exec(await readFile("/etc/os-release", "utf8"))?.[1];
  const address = codename ? mainArchiveAddress(await readAptSourceFiles(), codename) : null;
  if (!address) {
    throw new NativePostgresUnavailableError(
      `no Debian archive entry (\`deb <address> ${codename ?? "<release>"} main\`) was found in /etc/apt/sources.list or ` +
        "/etc/apt/sources.list.d: cannot fetch pgvector's source package",
    );
  }
  if (!(await pathExists(ARCHIVE_KEYRING)))
    await aptInstallOnBookworm(["debian-archive-keyring"], log);
  const entry = [
    "Types: deb-src",
    `URIs: ${address}`,
    `Suites: ${PGVECTOR_SOURCE_SUITE}`,
    "Components: main",
    `Signed-By: ${ARCHIVE_KEYRING}`,
    "",
  ].join("\n");
  const current = await readFile(PGVECTOR_SOURCE_LIST, "utf8").catch(() => null);
  if (current !== entry) {
    log(`writing ${PGVECTOR_SOURCE_LIST} (deb-src ${PGVECTOR_SOURCE_SUITE} on ${address})`);
    await writeFile(PGVECTOR_SOURCE_LIST, entry);
  }
  log(`apt-get update (${PGVECTOR_SOURCE_LIST} only)`);
  // Refreshing only this entry's index keeps the step to seconds; List-Cleanup=0 keeps the
  // other lists apt already has.
  await runCommand(
    "apt-get",
    [
      "update",
      "-o",
      `Dir::Etc::SourceList=${PGVECTOR_SOURCE_LIST}`,
      "-o",
      "Dir::Etc::SourceParts=-",
      "-o",
      "APT::Get::List-Cleanup=0",
    ],
    { env: aptEnvironment() },
  );
  // Fail here, naming the cause, rather than with apt-get source's "unable to find a source".
  await runCommand("apt-cache", ["showsrc", "pgvector"]).catch((error: unknown) => {
    throw new Error(
      `Debian ${PGVECTOR_SOURCE_SUITE}'s pgvector source is not visible to apt: ${String(error)}`,
    );
  });
}
