import type { ReactNode } from "react";
import { type Column, DataTable } from "./data-table.tsx";
import { PagedQuery } from "./paged-query.tsx";
import type { PagedList } from "./use-paged-query.ts";

/** What a listing's table says: its caption and columns, and the texts of its states. */
export interface TableSpec {
  caption: string;
  columns: Column[];
  /** e.g. "Loading keys" */
  loading: string;
  /** the pagination's accessible name, e.g. "Key pages" */
  pagesLabel: string;
}

/** A paged listing as a table: a row per item (`children` renders it), in PagedQuery's states. */
export function PagedTable<Item>({
  list,
  table,
  empty,
  children,
}: {
  list: PagedList<Item>;
  table: TableSpec;
  empty: ReactNode;
  children: (item: Item) => ReactNode;
}) {
  return (
    <PagedQuery list={list} loading={table.loading} pagesLabel={table.pagesLabel} empty={empty}>
      {(items) => (
        <DataTable caption={table.caption} columns={table.columns}>
          {items.map((item) => children(item))}
        </DataTable>
      )}
    </PagedQuery>
  );
}
