/** A loading state that says what is loading (announced politely to screen readers). */
export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {what}…
    </p>
  );
}
