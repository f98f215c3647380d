import { execFile } from "node:child_process";

export interface CommandResult {
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** A command that exited non-zero; the message ends with the tail of what it printed. */
export class CommandFailedError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly output: string,
  ) {
    const tail = output.trim().split("\n").slice(-15).join("\n");
    super(`\`${command}\` failed (exit ${exitCode ?? "signal"})${tail ? `:\n${tail}` : ""}`);
  }
}

/**
 * Runs a program with an argument vector (never through a shell, so paths and versions read
 * from the machine cannot inject anything) and resolves with its output.
 */
export function runCommand(
  program: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<CommandResult> {
  return new Promise((resolveResult, reject) => {
    execFile(
      program,
      args,
      // apt and make are chatty: keep the whole output so a failure can show its tail.
      { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) {
          resolveResult({ stdout, stderr });
          return;
        }
        const exitCode = typeof error.code === "number" ? error.code : null;
        if (error.code === "ENOENT") {
          reject(new CommandFailedError(program, null, `${program}: command not found`));
          return;
        }
        reject(new CommandFailedError([program, ...args].join(" "), exitCode, stdout + stderr));
      },
    );
  });
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * PostgreSQL refuses to run as root: as root its binaries run as the `postgres` OS user that
 * the Debian package creates; as anyone else they run as that user.
 */
export function asServerUser(program: string, args: readonly string[]): [string, string[]] {
  return isRoot()
    ? ["runuser", ["-u", SERVER_OS_USER, "--", program, ...args]]
    : [program, [...args]];
}

export const SERVER_OS_USER = "postgres";
