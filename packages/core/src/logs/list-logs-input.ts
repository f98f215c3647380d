import { z } from "zod";
import { BadRequestError } from "../shared/errors.ts";
import { parseInput } from "../shared/parse-input.ts";
import { integerParameter, LogFiltersInput } from "./log-filters-input.ts";

/** E7's default and maximum page size (docs/api.md#limits). */
export const DEFAULT_LOG_PAGE_SIZE = 50;
export const MAX_LOG_PAGE_SIZE = 1000;
export const MAX_LOG_PAGE = 10_000_000;

/** Longest log id `after` takes (ids are generated, far shorter). */
const MAX_LOG_ID_CHARS = 256;

/**
 * E7: a page of the endpoint's logs (1-based), filtered, optionally starting after the log
 * `after` in the listing's order (newest first, so: older logs), as E6's `after` a row.
 */
export const ListLogsInput = LogFiltersInput.extend({
  page: integerParameter(1, MAX_LOG_PAGE).default(1),
  page_size: integerParameter(1, MAX_LOG_PAGE_SIZE).default(DEFAULT_LOG_PAGE_SIZE),
  after: z
    .string({ error: "must be a log id" })
    .min(1, { error: "must be a log id" })
    .max(MAX_LOG_ID_CHARS, { error: `must be at most ${MAX_LOG_ID_CHARS} characters` })
    .optional(),
});
export type ListLogsInput = z.output<typeof ListLogsInput>;

/**
 * E7's parameters from the query string and the JSON body merged (docs/api.md#pagination).
 * An unknown one is a 400 naming it and the known ones.
 */
export function parseListLogsParams(params: Record<string, unknown>): ListLogsInput {
  assertKnownParameters(params, Object.keys(ListLogsInput.shape));
  return parseInput(ListLogsInput, params, "query");
}

export function assertKnownParameters(params: Record<string, unknown>, known: string[]): void {
  const unknown = Object.keys(params).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new BadRequestError(`unknown parameter; use ${known.join(", ")}`, unknown);
  }
}
