import { z } from "zod";

/**
 * The filters of E7 and of the log export (docs/api.md#e7-list-logs). Each arrives as a query
 * parameter (text) or as a JSON body field (typed), so a number or a boolean is taken in either
 * form; anything else is a 400 naming the parameter.
 */

export const LOG_RATINGS = ["positive", "negative", "unrated"] as const;
export type LogRatingFilter = (typeof LOG_RATINGS)[number];

/** Same bound as a completion's `user` (completion-input.ts): no longer one can be logged. */
export const MAX_LOG_USER_CHARS = 256;

/** `2024-05-01`, `2024-05-01T12:00`, `2024-05-01T12:00:00.123+02:00`; no offset means UTC. */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const ISO_8601_ERROR = "must be an ISO 8601 date or date-time, e.g. 2024-05-01T12:00:00Z";

/** The instant, or null for a date that does not exist (`2024-02-30`, `T25:00`). */
function isoInstant(text: string): Date | null {
  const [, y, mo, d, h = "0", mi = "0", sec = "0", zone] = ISO_8601.exec(text) ?? [];
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  // Date rolls 2024-02-30 over to March: a date exists when it comes back unchanged.
  if (day.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return null;
  if (text.length === 10) return day;
  const local = text.slice(0, text.length - (zone?.length ?? 0));
  // `+0200` as `+02:00`, which every Date parser reads
  const offset = zone === undefined ? "Z" : zone.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
  const at = new Date(`${local}${offset}`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** An integer from a JSON number or from query text (`"42"`), within bounds. */
export function integerParameter(min: number, max: number) {
  const error = `must be an integer from ${min} to ${max}`;
  return z.preprocess(
    (value) => (typeof value === "string" && /^-?\d{1,16}$/.test(value) ? Number(value) : value),
    z.number({ error }).int({ error }).min(min, { error }).max(max, { error }),
  );
}

/** `true`/`false` from JSON, or their text from a query string. */
export function booleanParameter() {
  return z.preprocess(
    (value) => (value === "true" ? true : value === "false" ? false : value),
    z.boolean({ error: "must be true or false" }),
  );
}

/** An ISO 8601 date or date-time, as the instant it names (UTC when it gives no offset). */
export function instantParameter() {
  return z
    .string({ error: ISO_8601_ERROR })
    .regex(ISO_8601, { error: ISO_8601_ERROR })
    .transform((text, ctx) => {
      const at = isoInstant(text);
      if (at === null) {
        ctx.issues.push({ code: "custom", message: "is not a date that exists", input: text });
        return z.NEVER;
      }
      return at;
    });
}

export const LogFiltersInput = z.object({
  rating: z.enum(LOG_RATINGS, { error: "must be positive, negative or unrated" }).optional(),
  has_comments: booleanParameter().optional(),
  /** inclusive */
  since: instantParameter().optional(),
  /** inclusive */
  until: instantParameter().optional(),
  user: z
    .string({ error: `must be a string of 1 to ${MAX_LOG_USER_CHARS} characters` })
    .min(1, { error: `must be a string of 1 to ${MAX_LOG_USER_CHARS} characters` })
    .max(MAX_LOG_USER_CHARS, { error: `must be a string of 1 to ${MAX_LOG_USER_CHARS} characters` })
    // Postgres refuses NUL in a text parameter (a 500, not a 400).
    .refine((user) => !user.includes("\u0000"), { error: "must not contain NUL" })
    .optional(),
  status: integerParameter(100, 599).optional(),
});
export type LogFiltersInput = z.output<typeof LogFiltersInput>;
