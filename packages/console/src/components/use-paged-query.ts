import {
  keepPreviousData,
  type UseQueryOptions,
  type UseQueryResult,
  useQuery,
} from "@tanstack/react-query";
import { useState } from "react";

/** A listing paged by the API's `offset`/`page_size`, and which page is shown. */
export interface PagedList<Item> {
  query: UseQueryResult<Item[]>;
  offset: number;
  pageSize: number;
  setOffset: (offset: number) => void;
}

/**
 * Holds the page's offset and queries that page; while the next page loads the current one
 * stays on screen (keepPreviousData), so the table does not flash to a spinner.
 */
export function usePagedQuery<Item>(
  pageSize: number,
  options: (offset: number) => UseQueryOptions<Item[]>,
): PagedList<Item> {
  const [offset, setOffset] = useState(0);
  const query = useQuery({ ...options(offset), placeholderData: keepPreviousData });
  return { query, offset, pageSize, setOffset };
}
