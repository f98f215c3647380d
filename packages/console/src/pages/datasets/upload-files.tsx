import { useQueryClient } from "@tanstack/react-query";
import { type DragEvent, useEffect, useId, useRef, useState } from "react";
import { Link } from "wouter";
import { uploadFile } from "../../api/upload.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { datasetKeys, useDocument } from "./dataset-api.ts";
import { formatBytes } from "./format.ts";
import { IngestStatus } from "./ingest-progress.tsx";

interface Upload {
  key: number;
  file: File;
  sent: number;
  documentId?: string;
  error?: unknown;
}

let nextKey = 1;

/**
 * Files dropped or picked are uploaded one request each (E9), showing bytes sent (XHR upload
 * events), then the document's ingestion progress (polled) until it is ready or failed.
 */
export function UploadFiles({ datasetId }: { datasetId: string }) {
  const queries = useQueryClient();
  const inputId = useId();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const aborts = useRef(new Set<AbortController>());
  useEffect(() => {
    const pending = aborts.current;
    return () => {
      for (const controller of pending) controller.abort();
    };
  }, []);

  function update(key: number, change: Partial<Upload>) {
    setUploads((current) => current.map((u) => (u.key === key ? { ...u, ...change } : u)));
  }

  function start(files: FileList | null) {
    for (const file of Array.from(files ?? [])) {
      const key = nextKey++;
      setUploads((current) => [{ key, file, sent: 0 }, ...current]);
      const controller = new AbortController();
      aborts.current.add(controller);
      uploadFile(datasetId, file, (sent) => update(key, { sent }), controller.signal)
        .then((reply) => {
          update(key, { sent: file.size, documentId: reply.document_id });
          queries.invalidateQueries({ queryKey: datasetKeys.documents(datasetId) });
        })
        .catch((error: unknown) => update(key, { error }))
        .finally(() => aborts.current.delete(controller));
    }
  }

  function drop(event: DragEvent) {
    event.preventDefault();
    setOver(false);
    start(event.dataTransfer.files);
  }

  return (
    <>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the drop target; the file input inside is the keyboard path */}
      <div
        className={`dropzone${over ? " over" : ""}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>Drop PDF, CSV, text, Markdown or HTML files here, or</p>
        <label htmlFor={inputId} className="sr-only">
          Choose files to upload
        </label>
        <input
          id={inputId}
          type="file"
          multiple
          onChange={(e) => {
            start(e.target.files);
            e.target.value = "";
          }}
        />
      </div>
      {uploads.length > 0 && (
        <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
          {uploads.map((upload) => (
            <UploadItem key={upload.key} datasetId={datasetId} upload={upload} />
          ))}
        </ul>
      )}
    </>
  );
}

function UploadItem({ datasetId, upload }: { datasetId: string; upload: Upload }) {
  const { file, sent, documentId, error } = upload;
  return (
    <li className="result stack" style={{ gap: "0.25rem" }} data-upload={file.name}>
      <div className="row between">
        <strong className="cell-text">{file.name}</strong>
        <span className="muted small">{formatBytes(file.size)}</span>
      </div>
      {error !== undefined ? (
        <ErrorNotice error={error} />
      ) : documentId ? (
        <UploadedDocument datasetId={datasetId} documentId={documentId} />
      ) : (
        <>
          <progress
            max={file.size || 1}
            value={sent}
            aria-label={`Uploading ${file.name}: ${formatBytes(sent)} of ${formatBytes(file.size)}`}
          />
          <span className="small muted">
            Uploading… {formatBytes(sent)} of {formatBytes(file.size)}
          </span>
        </>
      )}
    </li>
  );
}

function UploadedDocument({ datasetId, documentId }: { datasetId: string; documentId: string }) {
  const queries = useQueryClient();
  const document = useDocument(datasetId, documentId);
  const status = document.data?.status;
  // The list and the counts change when ingestion ends.
  useEffect(() => {
    if (status === "ready" || status === "failed")
      queries.invalidateQueries({ queryKey: datasetKeys.one(datasetId) });
  }, [status, datasetId, queries]);
  if (document.isError) return <ErrorNotice error={document.error} />;
  if (!document.data) return <span className="small muted">Uploaded; waiting for status…</span>;
  return (
    <div className="row between">
      <IngestStatus document={document.data} />
      <Link href={`/datasets/${datasetId}/documents/${encodeURIComponent(documentId)}`}>
        Open document
      </Link>
    </div>
  );
}
