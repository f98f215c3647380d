import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, ok } from "../../api/client.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Field, InputField } from "../../components/field.tsx";
import { useToast } from "../../components/toasts.tsx";
import { datasetKeys } from "./dataset-api.ts";
import { UploadFiles } from "./upload-files.tsx";

/** E9 uploads, and E5 documents from a URL or pasted text. */
export function AddDocuments({ datasetId }: { datasetId: string }) {
  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="upload-title">
        <h2 id="upload-title">Upload files</h2>
        <UploadFiles datasetId={datasetId} />
      </section>
      <section className="card" aria-labelledby="url-title">
        <h2 id="url-title">From a URL</h2>
        <CreateDocumentForm datasetId={datasetId} source="url" />
      </section>
      <section className="card" aria-labelledby="text-title">
        <h2 id="text-title">Paste text</h2>
        <CreateDocumentForm datasetId={datasetId} source="text" />
      </section>
    </div>
  );
}

function newDocumentId(prefix: string) {
  return `${prefix}-${new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, "")
    .slice(0, 14)}`;
}

function CreateDocumentForm({ datasetId, source }: { datasetId: string; source: "url" | "text" }) {
  const queries = useQueryClient();
  const toast = useToast();
  const contentId = useId();
  const [documentId, setDocumentId] = useState(() => newDocumentId(source));
  const [url, setUrl] = useState("");
  const [parse, setParse] = useState(true);
  const [content, setContent] = useState("");
  const [filename, setFilename] = useState("");
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST("/api/datasets/{id}/documents", {
          params: { path: { id: datasetId } },
          body:
            source === "url"
              ? { id: documentId.trim(), url: url.trim(), parse_url: parse }
              : {
                  id: documentId.trim(),
                  content,
                  ...(filename.trim() ? { filename: filename.trim() } : {}),
                },
        }),
      ),
    onSuccess: (document) => {
      toast(`Document ${document.id} ${document.status === "ready" ? "added" : "queued"}`);
      queries.invalidateQueries({ queryKey: datasetKeys.one(datasetId) });
      setDocumentId(newDocumentId(source));
      setUrl("");
      setContent("");
      setFilename("");
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <form className="stack" onSubmit={submit}>
      <InputField label="Document id" required value={documentId} onChange={setDocumentId} />
      {source === "url" ? (
        <>
          <InputField
            label="URL"
            type="url"
            required
            placeholder="https://example.com/page.html"
            value={url}
            onChange={setUrl}
          />
          <label className="check">
            <input type="checkbox" checked={parse} onChange={(e) => setParse(e.target.checked)} />
            Fetch and parse the page (HTML, text, Markdown, PDF, CSV)
          </label>
        </>
      ) : (
        <>
          <InputField label="File name (optional)" value={filename} onChange={setFilename} />
          <Field id={contentId} label="Text">
            <textarea
              id={contentId}
              required
              rows={6}
              value={content}
              onChange={(e) => setContent(e.target.value)}
            />
          </Field>
        </>
      )}
      {create.error && <ErrorNotice error={create.error} />}
      <div>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add document"}
        </button>
      </div>
    </form>
  );
}
