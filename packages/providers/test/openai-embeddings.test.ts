import { afterEach, describe, expect, it } from "vitest";
import { createEmbedder, ProviderError } from "../src/index.ts";
import {
  closedPort,
  type Handler,
  type LoopbackServer,
  sendJson,
  startServer,
} from "./support/loopback-server.ts";

// Retries in these tests back off by at most a few milliseconds.
const fastRetry = { baseMs: 2, maxMs: 10 };

function vector(seed: number, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, i) => ((seed + 1) * (i + 1)) % 7);
}

function embeddingsReply(input: string[], dimensions: number) {
  return {
    object: "list",
    model: "text-embedding-3-small",
    data: input.map((_, index) => ({
      object: "embedding",
      index,
      embedding: vector(index, dimensions),
    })),
    usage: { prompt_tokens: 3, total_tokens: 3 },
  };
}

const answer: Handler = (request, response) => {
  const body = request.body as { input: string[]; dimensions?: number };
  sendJson(response, 200, embeddingsReply(body.input, body.dimensions ?? 1536));
};

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Handler): Promise<LoopbackServer> {
  server = await startServer(handler);
  return server;
}

function env(url: string) {
  return { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: url };
}

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("openai embeddings", () => {
  it("posts the model and the texts to /embeddings and returns the vectors in order", async () => {
    const { url, requests } = await serve(answer);
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url));

    const vectors = await embedder.embed(["first text", "second text"]);

    expect(embedder.dimensions).toBe(1536);
    expect(vectors).toEqual([vector(0, 1536), vector(1, 1536)]);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/embeddings");
    expect(request?.headers.authorization).toBe("Bearer sk-test");
    expect(request?.body).toMatchObject({
      model: "text-embedding-3-small",
      input: ["first text", "second text"],
      encoding_format: "float",
    });
    expect(request?.body).not.toHaveProperty("dimensions");
  });

  it("asks for shortened vectors when the dimensions are overridden", async () => {
    const { url, requests } = await serve(answer);
    const embedder = createEmbedder("openai/text-embedding-3-large", env(url), {
      dimensions: 256,
    });
    const [first] = await embedder.embed(["short"]);
    expect(first).toHaveLength(256);
    expect(requests[0]?.body).toMatchObject({ model: "text-embedding-3-large", dimensions: 256 });
  });

  it("serves models it does not know when told their size, without sending it", async () => {
    const { url, requests } = await serve((request, response) => {
      const body = request.body as { input: string[] };
      sendJson(response, 200, embeddingsReply(body.input, 768));
    });
    const embedder = createEmbedder("openai/nomic-embed-text", env(url), { dimensions: 768 });
    const [first] = await embedder.embed(["hello"]);
    expect(first).toHaveLength(768);
    expect(requests[0]?.body).toMatchObject({ model: "nomic-embed-text" });
    expect(requests[0]?.body).not.toHaveProperty("dimensions");
  });

  it("retries a 429 and then succeeds", async () => {
    const { url, requests } = await serve((request, response, index) => {
      if (index === 0) {
        sendJson(response, 429, { error: { message: "slow down", type: "rate_limit" } });
        return;
      }
      answer(request, response, index);
    });
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      retry: fastRetry,
    });
    const vectors = await embedder.embed(["again"]);
    expect(vectors).toHaveLength(1);
    expect(requests).toHaveLength(2);
  });

  it("waits as long as Retry-After says", async () => {
    const { url, requests } = await serve((request, response, index) => {
      if (index === 0) {
        sendJson(response, 429, { error: { message: "slow down" } }, { "retry-after-ms": "150" });
        return;
      }
      answer(request, response, index);
    });
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      retry: fastRetry,
    });
    const started = performance.now();
    await embedder.embed(["patience"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(requests).toHaveLength(2);
  });

  it("fails fast when Retry-After is longer than it is worth waiting", async () => {
    const { url, requests } = await serve((_request, response) => {
      sendJson(response, 429, { error: { message: "quota" } }, { "retry-after": "3600" });
    });
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      retry: fastRetry,
    });
    const error = await rejection(embedder.embed(["x"]));
    expect(error).toMatchObject({ kind: "rate_limited", status: 429, retryable: true });
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(requests).toHaveLength(1);
  });

  it("gives up on a persistent 500 with an upstream error after all retries", async () => {
    const { url, requests } = await serve((_request, response) => {
      sendJson(response, 500, { error: { message: "boom", type: "server_error" } });
    });
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      retry: { ...fastRetry, retries: 3 },
    });
    const error = await rejection(embedder.embed(["x"]));
    expect(error).toMatchObject({ kind: "upstream", status: 500, retryable: true });
    expect(error.message).toContain("boom");
    expect(requests).toHaveLength(4);
  });

  it("does not retry a 401", async () => {
    const { url, requests } = await serve((_request, response) => {
      sendJson(response, 401, { error: { message: "Incorrect API key", type: "invalid_key" } });
    });
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      retry: fastRetry,
    });
    const error = await rejection(embedder.embed(["x"]));
    expect(error).toMatchObject({ kind: "upstream", status: 401, retryable: false });
    expect(requests).toHaveLength(1);
  });

  it("times out a slow attempt, retries it, then reports a timeout", async () => {
    const { url, requests } = await serve(() => {
      // Never answers; the embedder's deadline has to end each attempt.
    });
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      timeoutMs: 100,
      retry: { ...fastRetry, retries: 1 },
    });
    const error = await rejection(embedder.embed(["x"]));
    expect(error).toMatchObject({ kind: "timeout", retryable: true });
    expect(requests).toHaveLength(2);
  });

  it("treats a refused connection as a retryable upstream failure", async () => {
    const port = await closedPort();
    const embedder = createEmbedder(
      "openai/text-embedding-3-small",
      env(`http://127.0.0.1:${port}/v1`),
      { retry: { ...fastRetry, retries: 1 } },
    );
    const error = await rejection(embedder.embed(["x"]));
    expect(error).toMatchObject({ kind: "upstream", retryable: true });
    expect(error.status).toBeUndefined();
  });

  it("stops, without retrying, when the caller aborts", async () => {
    const { url, requests } = await serve(() => {});
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      retry: fastRetry,
    });
    const controller = new AbortController();
    const reason = new Error("client went away");
    setTimeout(() => controller.abort(reason), 50);
    await expect(embedder.embed(["x"], { signal: controller.signal })).rejects.toBe(reason);
    expect(requests).toHaveLength(1);
  });

  it("rejects vectors of the wrong size without retrying", async () => {
    const { url, requests } = await serve((request, response) => {
      const body = request.body as { input: string[] };
      sendJson(response, 200, embeddingsReply(body.input, 3));
    });
    const embedder = createEmbedder("openai/text-embedding-3-small", env(url), {
      retry: fastRetry,
    });
    const error = await rejection(embedder.embed(["x"]));
    expect(error).toMatchObject({ kind: "upstream", retryable: false });
    expect(error.message).toContain("1536");
    expect(requests).toHaveLength(1);
  });

  it("goes through the fetch given in the env", async () => {
    const { url } = await serve(answer);
    const seen: string[] = [];
    const embedder = createEmbedder("openai/text-embedding-ada-002", {
      ...env(url),
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    await embedder.embed(["via custom fetch"]);
    expect(seen).toEqual([`${url}/embeddings`]);
  });

  it("refuses what it cannot serve when it is built", () => {
    const invalid = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as ProviderError).kind).toBe("invalid_model");
        return (error as ProviderError).message;
      }
      throw new Error("expected a ProviderError");
    };
    const withKey = { OPENAI_API_KEY: "sk-test" };
    expect(invalid(() => createEmbedder("openai/text-embedding-3-small", {}))).toContain(
      "OPENAI_API_KEY",
    );
    expect(invalid(() => createEmbedder("openai/my-embedder", withKey))).toContain("dimensions");
    expect(
      invalid(() => createEmbedder("openai/text-embedding-ada-002", withKey, { dimensions: 512 })),
    ).toContain("1536");
    expect(
      invalid(() => createEmbedder("openai/text-embedding-3-small", withKey, { dimensions: 4096 })),
    ).toContain("at most");
  });
});
