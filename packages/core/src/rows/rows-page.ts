import { type AnyColumn, gt, type SQL } from "drizzle-orm";
import type { Page } from "../shared/context.ts";

/**
 * An E6 page: `offset` and `pageSize` as every listing has them, and `after`, a row id the page
 * starts after (docs/api.md#e6-list-rows). Rows are listed in id order, so the last id of one
 * page is where the next one starts: found in the index at once however deep it is, where an
 * offset is counted row by row, and unmoved by rows written or deleted before it meanwhile.
 */
export interface RowsPage extends Page {
  after?: number | undefined;
}

/** `column > after` for a page that starts after a row; nothing otherwise. */
export function afterRow(column: AnyColumn, after: number | undefined): SQL | undefined {
  return after === undefined ? undefined : gt(column, after);
}
