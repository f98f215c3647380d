import { sql } from "drizzle-orm";
import { BadRequestError } from "../shared/errors.ts";

/** Row ids are positive integers; anything else in the path is a 400, not a lookup. */
export function parseRowId(value: string | number, path = "row_id"): number {
  const text = String(value);
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new BadRequestError("must be a positive integer row id", path);
  }
  return Number(text);
}

/**
 * The next value of the rows' id sequence, for statements that draw many. The sequence is found
 * once per statement (an InitPlan): `nextval(pg_get_serial_sequence('rows', 'id'))` looked it up
 * by name for every row, 2–3.6 µs each (native PostgreSQL), against 0.3 µs.
 */
export const NEXT_ROW_ID = sql`nextval((SELECT pg_get_serial_sequence('rows', 'id')::regclass))`;
