/**
 * The pages a person has walked through a listing paged by `after` (E6's keyset: the rows after
 * a row id), as the `after` of each page from the first: `[undefined, 25th id, 50th id, …]`.
 * "Next" adds the last id shown, "Previous" goes back one, and every page is read from its own
 * place in the index, however deep: at 100,000 rows the page at offset 50,000 took 53 ms by
 * `offset` and 8 ms by `after` (docs/benchmarks.md). Rows written or deleted meanwhile do not
 * shift a page, as they shift an offset.
 */
export type KeysetTrail = readonly (number | undefined)[];

export const FIRST_PAGE: KeysetTrail = [undefined];

/** The `after` of the page shown: undefined on the first page. */
export function currentAfter(trail: KeysetTrail): number | undefined {
  return trail[trail.length - 1];
}

/** The page after the one shown, whose last item has the id `lastId`. */
export function nextPage(trail: KeysetTrail, lastId: number): KeysetTrail {
  return [...trail, lastId];
}

/** The page before the one shown; the first page stays the first. */
export function previousPage(trail: KeysetTrail): KeysetTrail {
  return trail.length > 1 ? trail.slice(0, -1) : trail;
}

/**
 * How many items the pages before this one showed: each was full (Next is offered only after a
 * full page), so the range label reads as an offset listing's would.
 */
export function itemsBefore(trail: KeysetTrail, pageSize: number): number {
  return (trail.length - 1) * pageSize;
}
