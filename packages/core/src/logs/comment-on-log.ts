import { logComments } from "@quarry/db";
import { asc, eq } from "drizzle-orm";
import type { Caller } from "../auth/authenticate-api-key.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError } from "../shared/errors.ts";
import { newId } from "../shared/ids.ts";
import { type LogWithComments, toLogWithComments } from "./log-views.ts";
import { requireLog } from "./require-log.ts";

export const MAX_COMMENT_CHARS = 10_000;

export interface CommentInput {
  comment: string;
  name?: string;
  email?: string;
}

/**
 * E10: adds a comment and answers with the log and all its comments, oldest first. The
 * commenter is `name`/`email` from the body when given, else the calling key's name (its id
 * when it has none) and email ("" when it has none).
 */
export async function commentOnLog(
  ctx: ProjectContext,
  endpointId: string,
  logId: string,
  body: unknown,
  caller: Pick<Caller, "keyId" | "keyName" | "keyEmail">,
): Promise<LogWithComments> {
  const input = parseComment(body);
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

function parseComment(body: unknown): CommentInput {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new BadRequestError("must be a JSON object", "body");
  }
  const { comment, name, email } = body as Record<string, unknown>;
  if (typeof comment !== "string" || comment.trim() === "") {
    throw new BadRequestError("is required: the comment text", "comment");
  }
  if (comment.length > MAX_COMMENT_CHARS) {
    throw new BadRequestError(`is longer than ${MAX_COMMENT_CHARS} characters`, "comment");
  }
  const input: CommentInput = { comment };
  for (const [field, value] of [
    ["name", name],
    ["email", email],
  ] as const) {
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || value.length > 320) {
      throw new BadRequestError("must be a string of at most 320 characters", field);
    }
    input[field] = value;
  }
  return input;
}
