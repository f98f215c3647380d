import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import {
  ProviderError,
  parseRetryAfter,
  providerErrorFromStatus,
  toProviderError,
  withRetry,
} from "../src/index.ts";

const fast = { baseMs: 1, maxMs: 5 };

describe("providerErrorFromStatus", () => {
  it("maps statuses to kinds and retryability", () => {
    expect(providerErrorFromStatus(429, "m")).toMatchObject({
      kind: "rate_limited",
      retryable: true,
    });
    expect(providerErrorFromStatus(408, "m")).toMatchObject({ kind: "timeout", retryable: true });
    expect(providerErrorFromStatus(500, "m")).toMatchObject({ kind: "upstream", retryable: true });
    expect(providerErrorFromStatus(503, "m")).toMatchObject({ kind: "upstream", retryable: true });
    for (const status of [400, 401, 403, 404, 422]) {
      expect(providerErrorFromStatus(status, "m")).toMatchObject({
        kind: "upstream",
        status,
        retryable: false,
      });
    }
    const limited = providerErrorFromStatus(429, "m", {
      headers: new Headers({ "retry-after": "2" }),
    });
    expect(limited.retryAfterMs).toBe(2000);
  });
});

describe("toProviderError", () => {
  it("classifies AI SDK call errors, timeouts and network failures", () => {
    const apiError = (statusCode: number | undefined, isRetryable?: boolean) =>
      new APICallError({
        message: "failed",
        url: "http://x/embeddings",
        requestBodyValues: {},
        ...(statusCode === undefined ? {} : { statusCode }),
        ...(isRetryable === undefined ? {} : { isRetryable }),
        responseHeaders: { "retry-after": "1" },
      });
    expect(toProviderError(apiError(429))).toMatchObject({
      kind: "rate_limited",
      status: 429,
      retryAfterMs: 1000,
    });
    expect(toProviderError(apiError(401))).toMatchObject({ kind: "upstream", retryable: false });
    expect(toProviderError(apiError(undefined, true))).toMatchObject({
      kind: "upstream",
      retryable: true,
    });
    expect(toProviderError(new DOMException("slow", "TimeoutError"))).toMatchObject({
      kind: "timeout",
      retryable: true,
    });
    expect(toProviderError(new TypeError("fetch failed"))).toMatchObject({ retryable: true });
    expect(toProviderError(new TypeError("x is not a function"))).toMatchObject({
      kind: "upstream",
      retryable: false,
    });
    const same = new ProviderError("timeout", "t");
    expect(toProviderError(same)).toBe(same);
  });
});

describe("parseRetryAfter", () => {
  it("reads retry-after-ms, delta-seconds and HTTP dates", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter({ "retry-after-ms": "250" }, now)).toBe(250);
    expect(parseRetryAfter({ "Retry-After": "3" }, now)).toBe(3000);
    expect(
      parseRetryAfter(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }), now),
    ).toBe(5000);
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });
});

describe("withRetry", () => {
  it("retries retryable errors and returns the first success", async () => {
    const attempts: number[] = [];
    const result = await withRetry(async (attempt) => {
      attempts.push(attempt);
      if (attempt < 2) throw providerErrorFromStatus(503, "busy");
      return "ok";
    }, fast);
    expect(result).toBe("ok");
    expect(attempts).toEqual([0, 1, 2]);
  });

  it("gives up after `retries` retries with the last error", async () => {
    let calls = 0;
    const error = await withRetry(
      async () => {
        calls++;
        throw providerErrorFromStatus(500, `failure ${calls}`);
      },
      { ...fast, retries: 2 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((error as Error).message).toBe("failure 3");
  });

  it("does not retry non-retryable or foreign errors", async () => {
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw providerErrorFromStatus(400, "bad");
      }, fast),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      withRetry(async () => {
        calls++;
        throw new Error("bug");
      }, fast),
    ).rejects.toThrow("bug");
    expect(calls).toBe(2);
  });

  it("backs off with full jitter under the cap, and honours Retry-After", async () => {
    const delays: number[] = [];
    await withRetry(
      async (attempt) => {
        if (attempt < 4) throw providerErrorFromStatus(500, "x");
      },
      { baseMs: 4, maxMs: 10, onRetry: (_error, _attempt, delayMs) => delays.push(delayMs) },
    );
    expect(delays).toHaveLength(4);
    delays.forEach((delay, n) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(Math.min(10, 4 * 2 ** n));
    });

    const waits: number[] = [];
    await withRetry(
      async (attempt) => {
        if (attempt === 0) {
          throw providerErrorFromStatus(429, "x", { headers: { "retry-after-ms": "30" } });
        }
      },
      { ...fast, onRetry: (_error, _attempt, delayMs) => waits.push(delayMs) },
    );
    expect(waits).toEqual([30]);
  });

  it("stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled");
    setTimeout(() => controller.abort(reason), 20);
    const started = performance.now();
    await expect(
      withRetry(
        async () => {
          throw providerErrorFromStatus(503, "x");
        },
        { baseMs: 10_000, maxMs: 10_000, signal: controller.signal },
      ),
    ).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
