const counts = new Intl.NumberFormat();

/** A count, or a dash when the API did not send it. */
export function formatCount(value: number | null | undefined): string {
  return typeof value === "number" ? counts.format(value) : "—";
}

export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
