import { logs } from "@quarry/db";
import { and, desc, eq } from "drizzle-orm";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { type LogListing, toLogListing } from "./log-views.ts";

/** E7's default and maximum page size (docs/api.md#limits). */
export const DEFAULT_LOG_PAGE_SIZE = 50;
export const MAX_LOG_PAGE_SIZE = 1000;

export interface LogPage {
  /** 1-based */
  page: number;
  pageSize: number;
}

/** E7: the endpoint's logs, newest first (ties broken by id, so pages never overlap). */
export async function listLogs(
  ctx: ProjectContext,
  endpointId: string,
  { page, pageSize }: LogPage,
): Promise<LogListing[]> {
  const endpoint = await requireEndpoint(ctx, endpointId);
  const found = await ctx.db
    .select()
    .from(logs)
    .where(and(eq(logs.endpointId, endpoint.id), eq(logs.projectId, ctx.projectId)))
    .orderBy(desc(logs.createdAt), desc(logs.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  return found.map(toLogListing);
}
