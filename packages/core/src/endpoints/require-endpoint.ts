import { endpoints } from "@quarry/db";
import { eq } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError, UnauthorizedError } from "../shared/errors.ts";
import type { EndpointRecord } from "./endpoint-view.ts";

/** Same auth rule as datasets: another project's endpoint is a 401, an unknown id a 404. */
export async function requireEndpoint(
  ctx: ProjectContext,
  endpointId: string,
): Promise<EndpointRecord> {
  // The cache may hold a record prefetched with the key, not yet checked: check it too.
  const cached = ctx.loaded?.get(`endpoint:${endpointId}`) as EndpointRecord | undefined;
  const [endpoint] = cached
    ? [cached]
    : await ctx.db.select().from(endpoints).where(eq(endpoints.id, endpointId));
  if (!endpoint) throw new NotFoundError("Endpoint", endpointId);
  if (endpoint.projectId !== ctx.projectId) {
    throw new UnauthorizedError("API key is not valid for this endpoint's project");
  }
  ctx.loaded?.set(`endpoint:${endpointId}`, endpoint);
  return endpoint;
}
