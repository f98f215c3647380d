import { describe, expect, it } from "vitest";
import { measureMachine, measurePostgres } from "../src/harness/yardstick.ts";

const SERVER =
  process.env.QUARRY_TEST_ENGINE === "native" ? process.env.QUARRY_TEST_DATABASE_URL : undefined;

describe("the benchmarks' yardstick", () => {
  it("times JavaScript and process creation on this machine", async () => {
    const machine = await measureMachine();
    expect(machine.js_embed_ms).toBeGreaterThan(0);
    expect(machine.spawn_ms).toBeGreaterThan(0);
    expect(Number.isFinite(machine.js_embed_ms + machine.spawn_ms)).toBe(true);
  });

  it.skipIf(!SERVER)(
    "times a new Postgres backend apart from a round trip on an open one, and the server's work",
    async () => {
      const postgres = await measurePostgres(SERVER as string);
      expect(postgres).not.toBeNull();
      expect(postgres?.round_trip_ms).toBeGreaterThan(0);
      // A new connection is a round trip and more (authentication, a backend's start).
      expect(postgres?.connect_ms).toBeGreaterThan(postgres?.round_trip_ms ?? 0);
      // 1,000 texts of ~500 characters stemmed: far more than one round trip.
      expect(postgres?.tsvector_ms).toBeGreaterThan(10 * (postgres?.round_trip_ms ?? 0));
    },
  );
});
