import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EMBEDDING_BATCH_SIZE, EMBEDDING_CONCURRENCY, embedTexts } from "../src/index.ts";

/**
 * An OpenAI-compatible `/embeddings` peer on loopback that answers after a delay, so calls
 * overlap, and records how many were in flight at once. Each vector encodes its text's
 * number (`t<n>`) so the order of the result can be checked.
 */
describe("embedTexts over a remote model", () => {
  const dimensions = 8;
  let server: Server;
  let inFlight = 0;
  let mostInFlight = 0;
  let calls = 0;
  /** answer the call with this number with a 503 (every attempt of it) */
  let failingCall: number | null = null;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const call = ++calls;
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        const { input } = JSON.parse(Buffer.concat(chunks).toString()) as { input: string[] };
        setTimeout(() => {
          inFlight--;
          if (failingCall !== null && call >= failingCall) {
            res.writeHead(400, { "content-type": "application/json" });
            res.end(JSON.stringify({ error: { message: "refused" } }));
            return;
          }
          const data = input.map((text, index) => ({
            object: "embedding",
            index,
            embedding: Array.from({ length: dimensions }, (_, i) =>
              i === 0 ? Number(text.slice(1)) : 0.5,
            ),
          }));
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              object: "list",
              data,
              model: "m",
              usage: { prompt_tokens: 1, total_tokens: 1 },
            }),
          );
        }, 40);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    calls = 0;
    mostInFlight = 0;
    failingCall = null;
  });

  const ctx = () => ({
    db: undefined as never,
    projectId: "p",
    providers: {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    },
  });
  const dataset = { embeddingModel: "openai/compatible-model", dimensions };
  const texts = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

  it("keeps a bounded number of calls in flight and returns the vectors in input order", async () => {
    const batches = 2 * EMBEDDING_CONCURRENCY + 1;
    const input = texts(batches * EMBEDDING_BATCH_SIZE - 7);
    const vectors = await embedTexts(ctx(), dataset, input);
    expect(calls).toBe(batches);
    expect(mostInFlight).toBe(EMBEDDING_CONCURRENCY);
    expect(vectors.map((v) => v[0])).toEqual(input.map((_, i) => i));
  });

  it("fails whole with upstream_error, starting no call after the failure", async () => {
    failingCall = 2;
    const batches = 3 * EMBEDDING_CONCURRENCY;
    await expect(
      embedTexts(ctx(), dataset, texts(batches * EMBEDDING_BATCH_SIZE)),
    ).rejects.toMatchObject({ code: "upstream_error" });
    // The first lanes were already in flight; none was started once one had failed.
    expect(calls).toBeLessThanOrEqual(2 * EMBEDDING_CONCURRENCY);
    expect(calls).toBeLessThan(batches);
  });
});
