import { logComments } from "@quarry/db";
import { asc, inArray } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import type { LogCommentRecord } from "./log-views.ts";

/**
 * The comments of a page of logs, oldest first per log, in one statement (E7's listing and the
 * export both show them; a query per log would cost a round trip each).
 */
export async function commentsOfLogs(
  ctx: ProjectContext,
  logIds: string[],
): Promise<Map<string, LogCommentRecord[]>> {
  const byLog = new Map<string, LogCommentRecord[]>();
  if (logIds.length === 0) return byLog;
  const found = await ctx.db
    .select()
    .from(logComments)
    .where(inArray(logComments.logId, logIds))
    .orderBy(asc(logComments.logId), asc(logComments.createdAt), asc(logComments.id));
  for (const comment of found) {
    const list = byLog.get(comment.logId);
    if (list) list.push(comment);
    else byLog.set(comment.logId, [comment]);
  }
  return byLog;
}
