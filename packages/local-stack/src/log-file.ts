import { appendFileSync } from "node:fs";

/**
 * A `log` sink for the stack's options that appends timestamped lines to `file`, written at
 * once (synchronously): a post-mortem of a hang reads the file while the stack is stuck.
 */
export function logLinesTo(file: string): (line: string) => void {
  return (line) => appendFileSync(file, `${new Date().toISOString()} ${line}\n`);
}
