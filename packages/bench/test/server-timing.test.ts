import { describe, expect, it } from "vitest";
import { parseServerTiming } from "../src/harness/server-timing.ts";

describe("parseServerTiming", () => {
  it("reads the api's db and app metrics", () => {
    expect(parseServerTiming('db;dur=12.37;desc="3 round trips", app;dur=15.9')).toEqual({
      db: 12.37,
      roundTrips: 3,
      app: 15.9,
    });
    expect(parseServerTiming('db;dur=0;desc="0 round trips", app;dur=0.41')).toEqual({
      db: 0,
      roundTrips: 0,
      app: 0.41,
    });
  });

  it("takes metrics in any order, beside others, with spaces after the separators", () => {
    expect(
      parseServerTiming(
        'cdn-cache;desc=HIT, app; dur=7, edge;dur=1.5, db; dur=2; desc="1 round trip"',
      ),
    ).toEqual({ db: 2, roundTrips: 1, app: 7 });
  });

  it("is undefined without the header or without either metric", () => {
    expect(parseServerTiming(undefined)).toBeUndefined();
    expect(parseServerTiming("")).toBeUndefined();
    expect(parseServerTiming("app;dur=3")).toBeUndefined();
    expect(parseServerTiming('db;desc="1 round trip", app;dur=3')).toBeUndefined();
  });
});
