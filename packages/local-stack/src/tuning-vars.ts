/**
 * Worker settings that `pnpm dev` and the benchmarks take from their environment and hand to
 * the stack's workers, over what the engine sets (`startStack`'s `vars`): the indexing, graph
 * and pending-list settings, so that one machine can compare them on the same day.
 */
export const TUNING_VARS = [
  "VECTOR_GRAPH_BULK_MIN_ROWS",
  "VECTOR_GRAPH_BULK_QUIET_MS",
  "VECTOR_GRAPH_M",
  "VECTOR_GRAPH_EF_CONSTRUCTION",
  "VECTOR_GRAPH_ENCODING",
  "PENDING_LIST_FLUSH_CHARACTERS",
] as const;

/** The tuning settings `env` sets (non-empty), by name. */
export function tuningVars(env: Record<string, string | undefined>): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const name of TUNING_VARS) {
    const value = env[name];
    if (value) vars[name] = value;
  }
  return vars;
}
