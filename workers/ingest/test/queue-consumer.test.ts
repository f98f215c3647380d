import { createDataset, createProject, type ProjectContext } from "@quarry/core";
import { documents, rows } from "@quarry/db";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertFileDocument } from "../../../packages/core/test/support/file-documents.ts";
import { freePort } from "../../../packages/local-stack/src/free-port.ts";
import { type ConsumerHarness, startConsumerHarness } from "./support/consumer-harness.ts";

/**
 * The ingest worker's consumer contract, message by message, in the style of Cloudflare's
 * vitest-pool-workers `queues` example: deliver a batch to the real worker, then check what
 * it acked or retried (and with what delay) and what it left in the database. The dead-letter
 * queue is exercised like the work queue: a document whose retries ran out must end `failed`
 * with the reason its last attempt recorded.
 */
let consumer: ConsumerHarness;
let project: ProjectContext;
let localDataset: string;
/** embeds through an OpenAI-compatible server that is not there: every slice fails, transiently */
let unreachableDataset: string;

beforeAll(async () => {
  consumer = await startConsumerHarness({
    OPENAI_API_KEY: "sk-consumer-test",
    OPENAI_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`,
  });
  const { db } = consumer;
  const created = await createProject(db, { name: "consumer" });
  project = { db, projectId: created.id };
  localDataset = (await createDataset(project, { name: "local" }, { embeddingModel: "local/hash" }))
    .id;
  unreachableDataset = (
    await createDataset(
      project,
      { name: "unreachable", embedding_model: "openai/text-embedding-3-small" },
      { embeddingModel: "local/hash" },
    )
  ).id;
});

afterAll(async () => {
  await consumer?.close();
});

/** A stored upload and its `queued` document, as the upload route leaves them. */
async function storedDocument(
  datasetId: string,
  id: string,
  file: { name: string; type: string; body: string | Uint8Array },
) {
  const key = `${project.projectId}/${datasetId}/${id}/${file.name}`;
  await consumer.files.put(key, file.body);
  await insertFileDocument(consumer.db, {
    projectId: project.projectId,
    datasetId,
    id,
    key,
    file,
    status: "queued",
    chunkSize: 200,
    chunkOverlap: 20,
  });
  return { v: 1, projectId: project.projectId, datasetId, documentId: id, cursor: null };
}

async function documentOf(datasetId: string, id: string) {
  const [found] = await consumer.db
    .select({ status: documents.status, error: documents.error })
    .from(documents)
    .where(and(eq(documents.datasetId, datasetId), eq(documents.id, id)));
  return found;
}

async function rowCountOf(datasetId: string, documentId: string) {
  const [counted] = await consumer.db
    .select({ n: count() })
    .from(rows)
    .where(and(eq(rows.datasetId, datasetId), eq(rows.documentId, documentId)));
  return counted?.n ?? 0;
}

describe("ingest queue consumer", () => {
  it("acks a slice it ingested: the document is ready with its rows", async () => {
    const text = "Tides follow the moon. ".repeat(40);
    const message = await storedDocument(localDataset, "tides", {
      name: "tides.txt",
      type: "text/plain",
      body: text,
    });
    const { id, result } = await consumer.deliver("quarry-ingest", message);
    expect(result.outcome).toBe("ok");
    expect(result.retryMessages).toStrictEqual([]);
    expect(result.explicitAcks).toStrictEqual([id]);
    expect(await documentOf(localDataset, "tides")).toStrictEqual({ status: "ready", error: null });
    expect(await rowCountOf(localDataset, "tides")).toBeGreaterThan(1);
  });

  it("acks an index-vectors message once it moved the dataset's backlog", async () => {
    const message = {
      v: 1,
      kind: "index-vectors",
      projectId: project.projectId,
      datasetId: localDataset,
    };
    const { id, result } = await consumer.deliver("quarry-ingest", message);
    expect(result.retryMessages).toStrictEqual([]);
    expect(result.explicitAcks).toStrictEqual([id]);
  });

  it("acks a file that cannot be parsed and fails its document with the reason, at once", async () => {
    const message = await storedDocument(localDataset, "broken", {
      name: "broken.pdf",
      type: "application/pdf",
      body: "%PDF-1.7 this is not a PDF body",
    });
    const { id, result } = await consumer.deliver("quarry-ingest", message);
    expect(result.explicitAcks).toStrictEqual([id]);
    expect(result.retryMessages).toStrictEqual([]);
    const document = await documentOf(localDataset, "broken");
    expect(document?.status).toBe("failed");
    expect(document?.error).toBeTruthy();
  });

  it("retries a transient failure with backoff, and notes why on the document", async () => {
    const message = await storedDocument(unreachableDataset, "retried", {
      name: "retried.txt",
      type: "text/plain",
      body: "A provider that does not answer fails the slice, not the document.",
    });
    const { id, result } = await consumer.deliver("quarry-ingest", message, 3);
    expect(result.explicitAcks).toStrictEqual([]);
    // the third delivery waits 2^3 s (outcome.ts: backoffSeconds)
    expect(result.retryMessages).toStrictEqual([{ msgId: id, delaySeconds: 8 }]);
    const document = await documentOf(unreachableDataset, "retried");
    expect(document?.status).toBe("queued");
    expect(document?.error).toMatch(/^retrying after: /);
  });

  it("dead letters: a slice whose retries ran out fails its document with the last error", async () => {
    const message = {
      v: 1,
      projectId: project.projectId,
      datasetId: unreachableDataset,
      documentId: "retried",
      cursor: null,
    };
    const noted = (await documentOf(unreachableDataset, "retried"))?.error ?? "";
    expect(noted).toMatch(/^retrying after: /);
    const { id, result } = await consumer.deliver("quarry-ingest-dlq", message, 6);
    expect(result.explicitAcks).toStrictEqual([id]);
    expect(result.retryMessages).toStrictEqual([]);
    const document = await documentOf(unreachableDataset, "retried");
    expect(document?.status).toBe("failed");
    expect(document?.error).toBe(
      `ingestion failed repeatedly and was abandoned (last error: ${noted.replace(/^retrying after: /, "")}); upload the file again`,
    );
    expect(await rowCountOf(unreachableDataset, "retried")).toBe(0);
  });

  it("dead letters: a late one leaves a ready document as it is", async () => {
    const message = {
      v: 1,
      projectId: project.projectId,
      datasetId: localDataset,
      documentId: "tides",
      cursor: null,
    };
    const { id, result } = await consumer.deliver("quarry-ingest-dlq", message, 6);
    expect(result.explicitAcks).toStrictEqual([id]);
    expect(await documentOf(localDataset, "tides")).toStrictEqual({ status: "ready", error: null });
  });

  it("dead letters: an index-vectors message is acked and fails nothing", async () => {
    const message = {
      v: 1,
      kind: "index-vectors",
      projectId: project.projectId,
      datasetId: localDataset,
    };
    const { id, result } = await consumer.deliver("quarry-ingest-dlq", message, 6);
    expect(result.explicitAcks).toStrictEqual([id]);
    expect(result.retryMessages).toStrictEqual([]);
  });

  it("acks a body that breaks the message contract instead of retrying it", async () => {
    for (const body of [
      { v: 2, projectId: project.projectId, datasetId: localDataset, documentId: "x" },
      {
        v: 1,
        projectId: project.projectId,
        datasetId: localDataset,
        documentId: "x",
        cursor: { position: -1, rowsWritten: 0 },
      },
      "not an object",
    ]) {
      const { id, result } = await consumer.deliver("quarry-ingest", body);
      expect(result.explicitAcks, JSON.stringify(body)).toStrictEqual([id]);
      expect(result.retryMessages).toStrictEqual([]);
    }
  });
});
