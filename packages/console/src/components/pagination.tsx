/**
 * Previous and next page of a listing paged by `offset` or by `after`. The API returns a page,
 * not a total, so "next" is offered while a page comes back full.
 */
export function Pagination({
  offset,
  pageSize,
  shown,
  onPrevious,
  onNext,
  label = "Pages",
  loading = false,
}: {
  /** items before the current page */
  offset: number;
  pageSize: number;
  /** items on the current page */
  shown: number;
  onPrevious: () => void;
  onNext: () => void;
  label?: string;
  /**
   * The page asked for is still loading (the one shown is the previous page): both buttons
   * wait, so a second click cannot skip a page nobody has seen.
   */
  loading?: boolean;
}) {
  const hasPrevious = offset > 0;
  const hasNext = shown >= pageSize;
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav className="pagination" aria-label={label} aria-busy={loading}>
      <button type="button" disabled={loading || !hasPrevious} onClick={onPrevious}>
        ← Previous
      </button>
      <span className="muted">
        {loading ? "loading…" : shown === 0 ? "none" : `${offset + 1}–${offset + shown}`}
      </span>
      <button type="button" disabled={loading || !hasNext} onClick={onNext}>
        Next →
      </button>
    </nav>
  );
}
