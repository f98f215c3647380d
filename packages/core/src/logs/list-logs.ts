import { logs } from "@quarry/db";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { commentsOfLogs } from "./comments-of-logs.ts";
import type { ListLogsInput } from "./list-logs-input.ts";
import { logFilterCondition, NEWEST_LOGS_FIRST } from "./log-filters.ts";
import { type LogListing, toLogListing } from "./log-views.ts";

/** E7: the endpoint's logs, filtered, newest first (ties broken by id, so pages never overlap). */
export async function listLogs(
  ctx: ProjectContext,
  endpointId: string,
  input: ListLogsInput,
): Promise<LogListing[]> {
  const endpoint = await requireEndpoint(ctx, endpointId);
  const found = await ctx.db
    .select()
    .from(logs)
    .where(logFilterCondition(ctx.projectId, endpoint.id, input))
    .orderBy(...NEWEST_LOGS_FIRST)
    .limit(input.page_size)
    .offset((input.page - 1) * input.page_size);
  const comments = await commentsOfLogs(
    ctx,
    found.map((log) => log.id),
  );
  return found.map((log) => toLogListing(log, comments.get(log.id) ?? []));
}
