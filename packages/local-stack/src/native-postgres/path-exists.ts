import { access, constants } from "node:fs/promises";

/** Whether `path` exists (and, with `executable`, may be executed by this process). */
export function pathExists(path: string, executable = false): Promise<boolean> {
  return access(path, executable ? constants.X_OK : constants.F_OK).then(
    () => true,
    () => false,
  );
}
