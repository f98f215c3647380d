import type { ReactNode } from "react";

/** An empty list: what is missing and, when there is one, the action that fills it. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}
