import type { ProjectContext } from "./context.ts";
import { NotFoundError, UnauthorizedError } from "./errors.ts";

/**
 * Loads a dataset or endpoint for the caller's project. Auth rule (docs/api.md#authentication):
 * an id that exists in another project is a 401 (the key is not valid for it); an id that exists
 * nowhere is a 404. The request's cache may hold a record prefetched with the key, not yet
 * checked: it is checked too.
 */
export async function requireOwned<T extends { projectId: string }>(
  ctx: ProjectContext,
  kind: "Dataset" | "Endpoint",
  id: string,
  load: () => Promise<T[]>,
): Promise<T> {
  const cacheKey = `${kind.toLowerCase()}:${id}`;
  const cached = ctx.loaded?.get(cacheKey) as T | undefined;
  const [record] = cached ? [cached] : await load();
  if (!record) throw new NotFoundError(kind, id);
  if (record.projectId !== ctx.projectId) {
    throw new UnauthorizedError(`API key is not valid for this ${kind.toLowerCase()}'s project`);
  }
  ctx.loaded?.set(cacheKey, record);
  return record;
}
