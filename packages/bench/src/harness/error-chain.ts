/**
 * An error with its causes, outermost first: Node's fetch rejects with "fetch failed" and keeps
 * what happened (a reset, a closed socket, a refused connection) in `cause`, one level or more
 * down.
 */
export function errorChain(error: unknown, depth = 5): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < depth) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/** The error and its causes in one line ("fetch failed ← other side closed"). */
export function describeError(error: unknown): string {
  return errorChain(error)
    .map((link) => (link instanceof Error ? link.message : String(link)))
    .join(" ← ");
}

/** The first system or library error code along the chain (`ECONNRESET`, `UND_ERR_SOCKET`). */
export function errorCode(error: unknown): string | undefined {
  for (const link of errorChain(error)) {
    const code = (link as { code?: unknown } | null)?.code;
    if (typeof code === "string") return code;
  }
  return undefined;
}
