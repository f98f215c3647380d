import { logs } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError } from "../shared/errors.ts";
import type { LogRecord } from "./log-views.ts";

/** A log of the endpoint (itself checked for the caller's project); 404 for any other id. */
export async function requireLog(
  ctx: ProjectContext,
  endpointId: string,
  logId: string,
): Promise<LogRecord> {
  const endpoint = await requireEndpoint(ctx, endpointId);
  const [log] = await ctx.db
    .select()
    .from(logs)
    .where(
      and(eq(logs.id, logId), eq(logs.endpointId, endpoint.id), eq(logs.projectId, ctx.projectId)),
    );
  if (!log) throw new NotFoundError("Log", logId);
  return log;
}
