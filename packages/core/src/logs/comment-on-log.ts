import { logComments } from "@quarry/db";
import { asc, eq } from "drizzle-orm";
import type { Caller } from "../auth/authenticate-api-key.ts";
import type { ProjectContext } from "../shared/context.ts";
import { newId } from "../shared/ids.ts";
import type { CommentOnLogInput } from "./comment-on-log-input.ts";
import { type LogWithComments, toLogWithComments } from "./log-views.ts";
import { requireLog } from "./require-log.ts";

/**
 * E10: adds a comment and answers with the log and all its comments, oldest first. The
 * commenter is `name`/`email` from the body when given, else the calling key's name (its id
 * when it has none) and email ("" when it has none).
 */
export async function commentOnLog(
  ctx: ProjectContext,
  endpointId: string,
  logId: string,
  input: CommentOnLogInput,
  caller: Pick<Caller, "keyId" | "keyName" | "keyEmail">,
): Promise<LogWithComments> {
  const log = await requireLog(ctx, endpointId, logId);
  await ctx.db.insert(logComments).values({
    id: newId("cmt"),
    projectId: ctx.projectId,
    logId: log.id,
    name: input.name ?? caller.keyName ?? caller.keyId,
    email: input.email ?? caller.keyEmail ?? "",
    comment: input.comment,
  });
  const comments = await ctx.db
    .select()
    .from(logComments)
    .where(eq(logComments.logId, log.id))
    .orderBy(asc(logComments.createdAt), asc(logComments.id));
  return toLogWithComments(log, comments);
}
