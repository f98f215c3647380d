import { rows } from "@quarry/db";
import { sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { requireDataset } from "../datasets/require-dataset.ts";
import { compileFilter } from "../filter/compile-filter.ts";
import type { ProjectContext } from "../shared/context.ts";
import { pageOfTermMatches, singleEquality } from "./equality-page.ts";
import {
  filterColumn,
  matchingRows,
  overflows,
  pageOfFewMatches,
  pageOfManyMatches,
} from "./filtered-page.ts";
import { embeddedColumn } from "./row-input.ts";
import { type RowView, type RowViewSource, toRowView } from "./row-view.ts";
import type { RowsPage } from "./rows-page.ts";
import { hasNoTerms, pageOfServiceKeyMatches } from "./service-key-page.ts";
import { pageOfRows } from "./unfiltered-page.ts";

/**
 * E6: a dataset's rows in insertion order (the identity id), paged, optionally filtered by
 * metadata. Unfiltered pages take their ids from the (dataset_id, id) index of `rows`. A
 * filter never searches `rows` itself; only the page's rows are read from it, by id:
 * - a single equality (`{key: value}`, the common filter) reads the page off the term's
 *   range in `row_filter_terms`, already in id order (see `equality-page.ts`); the service
 *   keys without terms (`rowId`, `url`, `chunk`) as `service-key-page.ts` says;
 * - any other filter runs over `row_filter_metadata`, the narrow copy of the rows' metadata
 *   (see `filtered-page.ts`): first the matching ids without an order, which a selective
 *   filter answers from the GIN index; when they are few, the page is cut from them. A broad
 *   filter overflows that set, and walking the copy in id order (stopping at the page) is
 *   the fast plan, so that is what is asked for then.
 * Both tables are kept by triggers on `rows`: packages/db/README.md.
 * A page `after` a row id (`rows-page.ts`) starts every path at that id, in the index.
 */
export async function listRows(
  ctx: ProjectContext,
  datasetId: string,
  page: RowsPage,
  filter?: unknown,
): Promise<RowView[]> {
  const dataset = await requireDataset(ctx, datasetId);
  if (filter === undefined || filter === null) {
    return toViews(dataset, await pageOfRows(ctx, dataset.id, page));
  }
  const matching = matchingRows(dataset.id, compileFilter(filter, filterColumn), page.after);
  const term = singleEquality(filter);
  if (term) {
    const onRows = compileFilter(filter, sql`${rows.metadata}`);
    const paged = hasNoTerms(term)
      ? await pageOfServiceKeyMatches(ctx, dataset.id, term, onRows, page)
      : await pageOfTermMatches(ctx, dataset.id, term, onRows, page);
    if (paged?.every((row) => row.matches)) return toViews(dataset, paged);
  }
  const found = await pageOfFewMatches(ctx, dataset.id, matching, page);
  if (found.length > 0 || !(await overflows(ctx, matching))) return toViews(dataset, found);
  return toViews(dataset, await pageOfManyMatches(ctx, dataset.id, matching, page));
}

function toViews(
  dataset: DatasetRecord,
  found: (Omit<RowViewSource, "embeddedColumn"> & { embedded: boolean })[],
): RowView[] {
  const column = embeddedColumn(dataset);
  return found.map((row) => toRowView({ ...row, embeddedColumn: row.embedded ? column : null }));
}
