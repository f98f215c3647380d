import { describe, expect, it } from "vitest";
import { queueSender } from "../src/queue-sender.ts";

/** A queue binding that keeps what it was sent (the consumer's side is the e2e stack's). */
function recordingQueue() {
  const sent: { body: unknown; options: unknown }[] = [];
  const queue = {
    async send(body: unknown, options: unknown) {
      sent.push({ body, options });
    },
  };
  return { queue: queue as unknown as Queue, sent };
}

const slice = { v: 1, projectId: "p", datasetId: "ds", documentId: "d", cursor: null };
const indexing = { v: 1, kind: "index-vectors", projectId: "p", datasetId: "ds" } as const;

describe("the queue sender", () => {
  it("puts slices on the ingest queue and indexing on its own, delays kept", async () => {
    const ingest = recordingQueue();
    const index = recordingQueue();
    const send = queueSender({ INGEST_QUEUE: ingest.queue, INDEX_QUEUE: index.queue });
    await send(slice);
    await send(indexing, { delaySeconds: 5 });
    expect(ingest.sent).toEqual([{ body: slice, options: { contentType: "json" } }]);
    expect(index.sent).toEqual([
      { body: indexing, options: { contentType: "json", delaySeconds: 5 } },
    ]);
  });

  it("sends nothing that breaks the message contract", async () => {
    const ingest = recordingQueue();
    const index = recordingQueue();
    const send = queueSender({ INGEST_QUEUE: ingest.queue, INDEX_QUEUE: index.queue });
    const broken = { ...indexing, datasetId: "" };
    await expect(send(broken)).rejects.toThrow();
    expect([...ingest.sent, ...index.sent]).toEqual([]);
  });
});
