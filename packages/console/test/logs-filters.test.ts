import { describe, expect, it } from "vitest";
import {
  dayToInstant,
  exportLogsQuery,
  instantToDay,
  listLogsQuery,
  readLogQuery,
  stillMatches,
  writeLogQuery,
} from "../src/pages/logs/log-filters.ts";

describe("log filters in the URL", () => {
  it("round-trips every filter and the page through the query string", () => {
    const query = {
      filters: {
        rating: "negative" as const,
        hasComments: true,
        since: "2026-01-01T00:00:00.000Z",
        until: "2026-01-31T23:59:59.999Z",
        user: "ana@example.com",
        status: 502,
      },
      page: 3,
    };
    const written = writeLogQuery(query);
    expect(written.toString()).toBe(
      "rating=negative&has_comments=true&since=2026-01-01T00%3A00%3A00.000Z&until=2026-01-31T23%3A59%3A59.999Z&user=ana%40example.com&status=502&page=3",
    );
    expect(readLogQuery(new URLSearchParams(written.toString()))).toEqual(query);
  });

  it("drops values it cannot read instead of failing the page", () => {
    const read = readLogQuery(
      new URLSearchParams(
        "rating=great&has_comments=yes&since=yesterday&until=2026-13-45T00:00Z&status=abc&page=-2&user=%20",
      ),
    );
    expect(read).toEqual({ filters: {}, page: 1 });
  });

  it("keeps has_comments=false apart from no filter", () => {
    expect(readLogQuery(new URLSearchParams("has_comments=false")).filters).toEqual({
      hasComments: false,
    });
    expect(writeLogQuery({ filters: { hasComments: false }, page: 1 }).toString()).toBe(
      "has_comments=false",
    );
  });

  it("builds E7's page query and the export query with the API's names and types", () => {
    const filters = { rating: "unrated" as const, hasComments: false, status: 200 };
    expect(listLogsQuery({ filters, page: 2 })).toEqual({
      rating: "unrated",
      has_comments: false,
      status: 200,
      page: 2,
      page_size: 50,
    });
    expect(exportLogsQuery(filters, "csv")).toEqual({
      rating: "unrated",
      has_comments: false,
      status: 200,
      format: "csv",
    });
  });

  it("turns a day range into instants that hold both whole days", () => {
    const since = dayToInstant("2026-03-05", "since")!;
    const until = dayToInstant("2026-03-06", "until")!;
    expect(new Date(until).getTime() - new Date(since).getTime()).toBe(2 * 86_400_000 - 1);
    expect(instantToDay(since)).toBe("2026-03-05");
    expect(instantToDay(until)).toBe("2026-03-06");
    expect(dayToInstant("03/05/2026", "since")).toBeUndefined();
    expect(instantToDay(undefined)).toBe("");
  });

  it("tells which reviewed logs have left the filtered list", () => {
    const unrated = { rating: "unrated" as const };
    expect(stillMatches({ rating: null, commentCount: null }, unrated)).toBe(true);
    expect(stillMatches({ rating: true, commentCount: null }, unrated)).toBe(false);
    expect(stillMatches({ rating: false, commentCount: 0 }, { rating: "negative" })).toBe(true);
    const uncommented = { hasComments: false };
    expect(stillMatches({ rating: null, commentCount: 1 }, uncommented)).toBe(false);
    // comments not known (E7 does not list them): kept
    expect(stillMatches({ rating: null, commentCount: null }, uncommented)).toBe(true);
    expect(stillMatches({ rating: true, commentCount: 2 }, {})).toBe(true);
  });
});
