import { logs } from "@quarry/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError } from "../shared/errors.ts";
import { type LogRating, toLogRating } from "./log-views.ts";
import type { RateLogsInput } from "./rate-logs-input.ts";

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
  input: RateLogsInput,
): Promise<LogRating | LogRating[]> {
  const endpoint = await requireEndpoint(ctx, endpointId);
  // A usage_id given twice takes its last rating.
  const ratings = new Map<string, boolean | null>(
    input.logs
      ? input.logs.map((r) => [r.usage_id, r.positive_rating])
      : [[input.usage_id ?? "", input.positive_rating ?? null]],
  );
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
  return input.logs ? views : (views[0] as LogRating);
}
