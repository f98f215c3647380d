import { keepPreviousData, type UseQueryOptions, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  currentAfter,
  FIRST_PAGE,
  itemsBefore,
  type KeysetTrail,
  nextPage,
  previousPage,
} from "./keyset-trail.ts";
import type { PagedList } from "./use-paged-query.ts";

/**
 * A listing paged by the API's `after` (keyset-trail.ts) rather than `offset`: `options` gets the
 * `after` of the page to show (undefined for the first), and `idOf` names the id the next page
 * starts after. Otherwise as `usePagedQuery`: the page shown stays on screen while the next
 * loads.
 */
export function useKeysetPagedQuery<Item>(
  pageSize: number,
  idOf: (item: Item) => number,
  options: (after: number | undefined) => UseQueryOptions<Item[]>,
): PagedList<Item> {
  const [trail, setTrail] = useState<KeysetTrail>(FIRST_PAGE);
  const query = useQuery({ ...options(currentAfter(trail)), placeholderData: keepPreviousData });
  return {
    query,
    offset: itemsBefore(trail, pageSize),
    pageSize,
    previous: () => setTrail(previousPage),
    next: () => {
      const last = query.data?.[query.data.length - 1];
      if (last !== undefined) setTrail((walked) => nextPage(walked, idOf(last)));
    },
  };
}
