import type { Document } from "./dataset-api.ts";
import { formatBytes, formatCount } from "./format.ts";

/** A document's status, with a live progress bar while ingesting and the reason when failed. */
export function IngestStatus({ document }: { document: Document }) {
  return (
    <div className="stack" style={{ gap: "0.25rem", alignItems: "flex-start" }}>
      <span className={`badge ${document.status}`}>{document.status}</span>
      {(document.status === "queued" || document.status === "processing") && (
        <IngestProgress progress={document.progress} />
      )}
      {document.status === "failed" && document.error && (
        <span className="small" role="note" style={{ color: "var(--danger)" }}>
          {document.error}
        </span>
      )}
    </div>
  );
}

function IngestProgress({ progress }: { progress: Document["progress"] }) {
  if (!progress) return <progress aria-label="Waiting to be ingested" />;
  const { unit, done, total, rows } = progress;
  const amount =
    unit === "bytes"
      ? `${formatBytes(done)}${total ? ` of ${formatBytes(total)}` : ""}`
      : `${formatCount(done)}${total ? ` of ${formatCount(total)}` : ""} ${unit}`;
  const label = `Ingested ${amount}, ${formatCount(rows)} rows`;
  return (
    <>
      {total ? (
        <progress max={total} value={done} aria-label={label} />
      ) : (
        <progress aria-label={label} />
      )}
      <span className="small muted">{label}</span>
    </>
  );
}
