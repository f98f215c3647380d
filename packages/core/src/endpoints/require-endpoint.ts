import { endpoints } from "@quarry/db";
import { eq } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { requireOwned } from "../shared/require-owned.ts";
import type { EndpointRecord } from "./endpoint-view.ts";

/** Same auth rule as datasets: another project's endpoint is a 401, an unknown id a 404. */
export function requireEndpoint(ctx: ProjectContext, endpointId: string): Promise<EndpointRecord> {
  return requireOwned(ctx, "Endpoint", endpointId, () =>
    ctx.db.select().from(endpoints).where(eq(endpoints.id, endpointId)),
  );
}
