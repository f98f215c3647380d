import type { ReactNode } from "react";

export interface Column {
  label: string;
  /** unique among the columns; defaults to the label */
  key?: string;
  className?: string;
  /** a label for screen readers only (an actions column) */
  hidden?: boolean;
}

/**
 * A table in a horizontally scrolling box, captioned for screen readers, its header cells
 * scoped to their columns. The caller renders the body's rows.
 */
export function DataTable({
  caption,
  columns,
  children,
}: {
  caption: string;
  columns: Column[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.key ?? column.label} className={column.className}>
                {column.hidden ? <span className="sr-only">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Columns many listings share: when an item was created (hidden on a phone), its actions. */
export const CREATED_COLUMN: Column = { label: "Created", className: "hide-narrow" };
export const ACTIONS_COLUMN: Column = { label: "Actions", hidden: true };
