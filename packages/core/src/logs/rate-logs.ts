import { logs } from "@quarry/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError, NotFoundError } from "../shared/errors.ts";
import { type LogRating, toLogRating } from "./log-views.ts";

export const MAX_RATINGS_PER_BATCH = 1000;

type Rating = boolean | null;

/**
 * E15. The single form `{usage_id, positive_rating}` answers with the log in rating form;
 * the batch form `{logs: [{usage_id, positive_rating}, …]}` with the updated logs in rating
 * form, in the order given. A batch is all or nothing: one statement updates every log only
 * if all of them belong to the endpoint, otherwise nothing changes and the first unknown id
 * is a 404. `positive_rating: null` clears a rating.
 */
export async function rateLogs(
  ctx: ProjectContext,
  endpointId: string,
  body: unknown,
): Promise<LogRating | LogRating[]> {
  const request = parseRatings(body);
  const endpoint = await requireEndpoint(ctx, endpointId);
  const ratings = new Map(request.ratings);
  const ids = [...ratings.keys()];
  const ratingCase = sql`CASE ${logs.id} ${sql.join(
    ids.map((id) => sql`WHEN ${id} THEN ${ratings.get(id) ?? null}::boolean`),
    sql` `,
  )} END`;
  const idList = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const updated = await ctx.db
    .update(logs)
    .set({ positiveRating: ratingCase })
    .where(
      and(
        eq(logs.endpointId, endpoint.id),
        eq(logs.projectId, ctx.projectId),
        inArray(logs.id, ids),
        // The all-or-nothing guard, evaluated in the update's own snapshot.
        sql`(SELECT count(*) FROM logs AS known
             WHERE known.endpoint_id = ${endpoint.id} AND known.id IN (${idList})) = ${ids.length}`,
      ),
    )
    .returning();
  if (updated.length !== ids.length) {
    const found = await ctx.db
      .select({ id: logs.id })
      .from(logs)
      .where(and(eq(logs.endpointId, endpoint.id), inArray(logs.id, ids)));
    const known = new Set(found.map((l) => l.id));
    throw new NotFoundError("Log", ids.find((id) => !known.has(id)) ?? ids[0] ?? "");
  }
  const byId = new Map(updated.map((log) => [log.id, toLogRating(log)]));
  const views = ids.map((id) => byId.get(id) as LogRating);
  return request.batch ? views : (views[0] as LogRating);
}

function parseRatings(body: unknown): { batch: boolean; ratings: [string, Rating][] } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new BadRequestError("must be a JSON object", "body");
  }
  const fields = body as Record<string, unknown>;
  if (fields.logs !== undefined) {
    if (fields.usage_id !== undefined || fields.positive_rating !== undefined) {
      throw new BadRequestError("give either logs, or usage_id with positive_rating", "logs");
    }
    if (!Array.isArray(fields.logs) || fields.logs.length === 0) {
      throw new BadRequestError("must be a non-empty list of {usage_id, positive_rating}", "logs");
    }
    if (fields.logs.length > MAX_RATINGS_PER_BATCH) {
      throw new BadRequestError(`at most ${MAX_RATINGS_PER_BATCH} ratings per request`, "logs");
    }
    // A usage_id given twice takes its last rating.
    return { batch: true, ratings: fields.logs.map((item, i) => parseRating(item, `logs[${i}].`)) };
  }
  return { batch: false, ratings: [parseRating(fields, "")] };
}

function parseRating(item: unknown, prefix: string): [string, Rating] {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw new BadRequestError("must be an object {usage_id, positive_rating}", prefix.slice(0, -1));
  }
  const { usage_id: id, positive_rating: rating } = item as Record<string, unknown>;
  if (typeof id !== "string" || id === "") {
    throw new BadRequestError(
      "is required: the log id (a completion's usage_id)",
      `${prefix}usage_id`,
    );
  }
  if (typeof rating !== "boolean" && rating !== null) {
    throw new BadRequestError(
      "is required: true, false (or null to clear)",
      `${prefix}positive_rating`,
    );
  }
  return [id, rating];
}
