import { logs } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError } from "../shared/errors.ts";
import { commentsOfLogs } from "./comments-of-logs.ts";
import type { ListLogsInput } from "./list-logs-input.ts";
import {
  LOG_CURSOR_AT,
  type LogCursor,
  logFilterCondition,
  NEWEST_LOGS_FIRST,
  olderThan,
} from "./log-filters.ts";
import { type LogListing, toLogListing } from "./log-views.ts";

/**
 * E7: the endpoint's logs, filtered, newest first (ties broken by id, so pages never overlap).
 * `after` (a log id) starts the listing after that log in this order: the next page from the
 * last log of one page, which the indexes on `logs` find at once however many logs it skips.
 */
export async function listLogs(
  ctx: ProjectContext,
  endpointId: string,
  input: ListLogsInput,
): Promise<LogListing[]> {
  const endpoint = await requireEndpoint(ctx, endpointId);
  const cursor =
    input.after === undefined ? undefined : await logCursor(ctx, endpoint.id, input.after);
  const found = await pageOfLogs(ctx, endpoint, input, cursor);
  const comments = await commentsOfLogs(
    ctx,
    found.map((log) => log.id),
  );
  return found.map((log) => toLogListing(log, comments.get(log.id) ?? []));
}

/**
 * The page's statement, over an endpoint `requireEndpoint` found: the endpoint's index walked
 * newest first, from the cursor when there is one, to the end of the page (a page number's
 * offset walks over every log it skips).
 */
export function pageOfLogs(
  ctx: ProjectContext,
  endpoint: { id: string },
  input: ListLogsInput,
  cursor: LogCursor | undefined,
) {
  return ctx.db
    .select()
    .from(logs)
    .where(and(logFilterCondition(endpoint, input), cursor && olderThan(cursor)))
    .orderBy(...NEWEST_LOGS_FIRST)
    .limit(input.page_size)
    .offset((input.page - 1) * input.page_size);
}

/** Where a log of the endpoint stands in E7's order; a 400 naming `after` for any other id. */
export async function logCursor(
  ctx: ProjectContext,
  endpointId: string,
  logId: string,
): Promise<LogCursor> {
  const [found] = await ctx.db
    .select({ at: LOG_CURSOR_AT, id: logs.id })
    .from(logs)
    .where(
      and(eq(logs.id, logId), eq(logs.endpointId, endpointId), eq(logs.projectId, ctx.projectId)),
    );
  if (!found) throw new BadRequestError("is not a log of this endpoint", "after");
  return found;
}
