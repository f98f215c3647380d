import { BadRequestError } from "../shared/errors.ts";

/** Row ids are positive integers; anything else in the path is a 400, not a lookup. */
export function parseRowId(value: string | number, path = "row_id"): number {
  const text = String(value);
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new BadRequestError("must be a positive integer row id", path);
  }
  return Number(text);
}
