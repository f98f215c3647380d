/** One JSON line per event, which `wrangler tail` and the local stack's log keep. */
export function log(
  level: "info" | "warn" | "error",
  msg: string,
  fields: Record<string, unknown>,
): void {
  console.log(JSON.stringify({ level, msg, ...fields }));
}

export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
