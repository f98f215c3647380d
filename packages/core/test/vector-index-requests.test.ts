import { describe, expect, it } from "vitest";
import { VectorIndexRequests } from "../src/index.ts";

describe("VectorIndexRequests", () => {
  it("sends one delayed message per dataset and window; a new window sends again", () => {
    let now = 1_000_000;
    const requests = new VectorIndexRequests(5, () => now);
    expect(requests.claim("a")).toBe(5);
    expect(requests.claim("b")).toBe(5);
    now += 4_999;
    expect(requests.claim("a")).toBeNull(); // the message sent at t0 runs after this write
    now += 1;
    expect(requests.claim("a")).toBe(5);
    expect(requests.claim("a")).toBeNull();
  });

  it("lets the next write send again when a message could not be sent", () => {
    const requests = new VectorIndexRequests(5, () => 0);
    expect(requests.claim("a")).toBe(5);
    requests.release("a");
    expect(requests.claim("a")).toBe(5);
  });

  it("stays bounded: past windows are forgotten when the map is full", () => {
    let now = 0;
    const requests = new VectorIndexRequests(1, () => now, 3);
    for (const id of ["a", "b", "c"]) expect(requests.claim(id)).toBe(1);
    now = 2_000;
    expect(requests.claim("d")).toBe(1);
    // a, b and c were forgotten; none of them is held back.
    expect(requests.claim("a")).toBe(1);
    expect(requests.claim("d")).toBeNull();
  });
});
