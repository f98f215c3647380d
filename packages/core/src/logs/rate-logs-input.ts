import { z } from "zod";

export const MAX_RATINGS_PER_BATCH = 1000;

const USAGE_ID_REQUIRED = "is required: the log id (a completion's usage_id)";
const RATING_REQUIRED = "is required: true, false (or null to clear)";

const UsageId = z.string({ error: USAGE_ID_REQUIRED }).min(1, { error: USAGE_ID_REQUIRED });
const PositiveRating = z.boolean({ error: RATING_REQUIRED }).nullable();

/**
 * E15 (docs/api.md#e15-rate-logs): the single form `{usage_id, positive_rating}` or the batch
 * form `{logs: [{usage_id, positive_rating}, …]}`, never both. `positive_rating: null` clears.
 */
export const RateLogsInput = z
  .object({
    logs: z
      .array(
        z.object(
          { usage_id: UsageId, positive_rating: PositiveRating },
          { error: "must be an object {usage_id, positive_rating}" },
        ),
        { error: "must be a non-empty list of {usage_id, positive_rating}" },
      )
      .min(1, { error: "must be a non-empty list of {usage_id, positive_rating}" })
      .max(MAX_RATINGS_PER_BATCH, { error: `at most ${MAX_RATINGS_PER_BATCH} ratings per request` })
      .optional(),
    usage_id: UsageId.optional(),
    positive_rating: PositiveRating.optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.logs !== undefined) {
      if (input.usage_id !== undefined || input.positive_rating !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["logs"],
          message: "give either logs, or usage_id with positive_rating",
        });
      }
      return;
    }
    if (input.usage_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["usage_id"], message: USAGE_ID_REQUIRED });
    } else if (input.positive_rating === undefined) {
      ctx.addIssue({ code: "custom", path: ["positive_rating"], message: RATING_REQUIRED });
    }
  });
export type RateLogsInput = z.output<typeof RateLogsInput>;
