import { CommandFailedError, runCommand } from "./run-command.ts";

/** apt-get never stops to ask. */
export function aptEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
}

/**
 * Installs packages; refreshes the package lists only when the install fails (a fresh machine
 * has none, or stale ones point at files the archive no longer holds), because an update of
 * every list costs tens of seconds that an already-current machine should not pay.
 * `explainRetryFailure` turns the error of the install after the update into the one to throw.
 */
export async function aptInstall(
  packages: readonly string[],
  log: (line: string) => void,
  explainRetryFailure: (error: unknown) => unknown = (error) => error,
): Promise<void> {
  const install = () =>
    runCommand("apt-get", ["install", "-y", "--no-install-recommends", ...packages], {
      env: aptEnvironment(),
    });
  log(`apt-get install ${packages.join(" ")}`);
  try {
    await install();
  } catch (error) {
    if (!(error instanceof CommandFailedError)) throw error;
    log("the install failed with the current package lists: apt-get update, then once more");
    await runCommand("apt-get", ["update"], { env: aptEnvironment() });
    await install().catch((retryError: unknown) => {
      throw explainRetryFailure(retryError);
    });
  }
}
