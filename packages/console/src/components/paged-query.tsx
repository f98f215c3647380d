import type { ReactNode } from "react";
import { ErrorNotice } from "./error-notice.tsx";
import { Loading } from "./loading.tsx";
import { Pagination } from "./pagination.tsx";
import type { PagedList } from "./use-paged-query.ts";

/**
 * One page of a listing in its states: loading, an error with a retry, empty (on the first
 * page), or the items (rendered by `children`) with the pagination.
 */
export function PagedQuery<Item>({
  list,
  loading,
  pagesLabel,
  empty,
  children,
}: {
  list: PagedList<Item>;
  /** what is loading, e.g. "Loading keys" */
  loading: string;
  /** the pagination's accessible name, e.g. "Key pages" */
  pagesLabel: string;
  /** shown when the first page is empty */
  empty: ReactNode;
  children: (items: Item[]) => ReactNode;
}) {
  const { query, offset, pageSize } = list;
  if (query.isPending) return <Loading what={loading} />;
  if (query.isError) return <ErrorNotice error={query.error} onRetry={() => query.refetch()} />;
  if (query.data.length === 0 && offset === 0) return empty;
  return (
    <>
      {children(query.data)}
      <Pagination
        offset={offset}
        pageSize={pageSize}
        shown={query.data.length}
        onPrevious={list.previous}
        onNext={list.next}
        label={pagesLabel}
        loading={query.isPlaceholderData}
      />
    </>
  );
}
