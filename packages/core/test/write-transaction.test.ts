import { describe, expect, it } from "vitest";
import {
  ContentionError,
  isContention,
  NotFoundError,
  retryOnContention,
  WRITE_ATTEMPTS,
} from "../src/index.ts";

/** A driver error as node-postgres and Neon's driver raise it, wrapped as Drizzle wraps it. */
function wrapped(code: string): Error {
  const driver = Object.assign(new Error("deadlock detected"), { code });
  return new Error("Failed query: insert into …", { cause: driver });
}

describe("retryOnContention", () => {
  it("runs the write again after a deadlock or serialization failure, and returns its result", async () => {
    const codes = ["40P01", "40001"];
    let calls = 0;
    const result = await retryOnContention(async () => {
      const code = codes[calls++];
      if (code) throw wrapped(code);
      return "written";
    });
    expect(result).toBe("written");
    expect(calls).toBe(3);
  });

  it("gives up after WRITE_ATTEMPTS with a ContentionError (429), never the driver's error", async () => {
    let calls = 0;
    const failure = await retryOnContention(async () => {
      calls++;
      throw wrapped("40P01");
    }).catch((error: unknown) => error);
    expect(calls).toBe(WRITE_ATTEMPTS);
    expect(failure).toBeInstanceOf(ContentionError);
    expect((failure as ContentionError).code).toBe("rate_limited");
  });

  it("does not repeat a write that failed for any other reason", async () => {
    let calls = 0;
    const failure = await retryOnContention(async () => {
      calls++;
      throw new NotFoundError("Dataset", "gone");
    }).catch((error: unknown) => error);
    expect(calls).toBe(1);
    expect(failure).toBeInstanceOf(NotFoundError);
  });

  it("recognises contention anywhere in the cause chain, and only those SQLSTATEs", () => {
    expect(isContention(wrapped("40P01"))).toBe(true);
    expect(isContention(new Error("outer", { cause: wrapped("40001") }))).toBe(true);
    expect(isContention(wrapped("23505"))).toBe(false);
    expect(isContention(new Error("no code"))).toBe(false);
  });
});
