import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathExists } from "./path-exists.ts";

/**
 * Where Debian's packages put PostgreSQL 15 and its extensions. The major version is fixed:
 * it is the one Debian 12 ships, and the one whose server-dev package pgvector is built against.
 */
export const POSTGRES_MAJOR = 15;
export const POSTGRES_BIN_DIR = `/usr/lib/postgresql/${POSTGRES_MAJOR}/bin`;
export const PG_CONFIG = join(POSTGRES_BIN_DIR, "pg_config");
export const VECTOR_CONTROL_FILE = `/usr/share/postgresql/${POSTGRES_MAJOR}/extension/vector.control`;
export const VECTOR_LIBRARY = `/usr/lib/postgresql/${POSTGRES_MAJOR}/lib/vector.so`;
/** Per-statement statistics; part of Debian's server package (contrib). */
export const STATEMENT_STATISTICS_LIBRARY = `/usr/lib/postgresql/${POSTGRES_MAJOR}/lib/pg_stat_statements.so`;

/** Quarry needs pgvector 0.8 (iterative index scans for filtered searches). */
export const MINIMUM_PGVECTOR: readonly [number, number] = [0, 8];

/** What the machine has now; `pgvector` is the control file's default version. */
export interface NativeInstallation {
  server: boolean;
  pgvector: string | null;
}

export async function inspectInstallation(): Promise<NativeInstallation> {
  const serverBinaries = ["postgres", "initdb", "pg_ctl"].map((name) =>
    join(POSTGRES_BIN_DIR, name),
  );
  const [server, vectorLibrary, control] = await Promise.all([
    allExecutable(serverBinaries),
    pathExists(VECTOR_LIBRARY),
    readFile(VECTOR_CONTROL_FILE, "utf8").catch(() => null),
  ]);
  const pgvector = vectorLibrary && control !== null ? controlDefaultVersion(control) : null;
  return { server, pgvector };
}

/** True when PostgreSQL 15 and pgvector >= 0.8 are installed: nothing left to provision. */
export async function isNativePostgresProvisioned(): Promise<boolean> {
  const installation = await inspectInstallation();
  return installation.server && isSufficientPgvector(installation.pgvector);
}

export function isSufficientPgvector(version: string | null): boolean {
  return version !== null && versionAtLeast(version, MINIMUM_PGVECTOR);
}

/** `default_version = '0.8.0'` in an extension's control file. */
export function controlDefaultVersion(controlText: string): string | null {
  return /^\s*default_version\s*=\s*'([^']+)'/m.exec(controlText)?.[1] ?? null;
}

/** Compares dotted numeric versions: "0.8.0" >= [0, 8]; "0.10.1" >= [0, 8]; "0.7.4" is not. */
export function versionAtLeast(version: string, minimum: readonly number[]): boolean {
  const parts = version.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  for (let index = 0; index < minimum.length; index++) {
    const have = parts[index] ?? 0;
    const need = minimum[index] ?? 0;
    if (Number.isNaN(have)) return false;
    if (have !== need) return have > need;
  }
  return true;
}

async function allExecutable(paths: readonly string[]): Promise<boolean> {
  const results = await Promise.all(paths.map((path) => pathExists(path, true)));
  return results.every(Boolean);
}
