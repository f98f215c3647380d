import { type ReactNode, useId } from "react";

/**
 * A page: its heading (which names the section for screen readers) beside the page's
 * actions, then the content.
 */
export function PageSection({
  title,
  actions,
  children,
}: {
  title: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    <section className="stack" aria-labelledby={titleId}>
      <div className="row between">
        <h1 id={titleId}>{title}</h1>
        {actions}
      </div>
      {children}
    </section>
  );
}
