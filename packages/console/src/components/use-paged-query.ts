import {
  keepPreviousData,
  type UseQueryOptions,
  type UseQueryResult,
  useQuery,
} from "@tanstack/react-query";
import { useState } from "react";

/** A listing shown a page at a time, where that page starts, and the moves between pages. */
export interface PagedList<Item> {
  query: UseQueryResult<Item[]>;
  /** items before the page shown (the range label's start) */
  offset: number;
  pageSize: number;
  previous: () => void;
  next: () => void;
}

/**
 * A listing paged by the API's `offset`/`page_size`: holds the page's offset and queries that
 * page; while the next page loads the current one stays on screen (keepPreviousData), so the
 * table does not flash to a spinner.
 */
export function usePagedQuery<Item>(
  pageSize: number,
  options: (offset: number) => UseQueryOptions<Item[]>,
): PagedList<Item> {
  const [offset, setOffset] = useState(0);
  const query = useQuery({ ...options(offset), placeholderData: keepPreviousData });
  return {
    query,
    offset,
    pageSize,
    previous: () => setOffset((shown) => Math.max(0, shown - pageSize)),
    next: () => setOffset((shown) => shown + pageSize),
  };
}
