import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter, MAX_IN_VALUES } from "../src/filter/compile-filter.ts";
import { freshDatabase } from "./support/database.ts";

/**
 * Table-driven: every case runs the compiled SQL against real Postgres over the same rows
 * and compares the ids that match.
 */
const ROWS: Record<number, Record<string, unknown>> = {
  1: { genre: "drama", year: 2020, rating: 4.5, tags: ["a", "b"], draft: false },
  2: { genre: "comedy", year: 2019, rating: 3, tags: ["b"], draft: true },
  3: { genre: "drama", year: "2020", tags: [] },
  4: { year: 2021, author: "O'Brien; DROP TABLE t; --", "weird key'\"": "x" },
  5: {},
};

let db: Database;
let close: () => Promise<void>;
beforeAll(async () => {
  const fresh = await freshDatabase();
  db = fresh.db;
  close = () => fresh.close();
  await db.execute(sql`create table t (id int primary key, metadata jsonb not null)`);
  for (const [id, metadata] of Object.entries(ROWS)) {
    await db.execute(sql`insert into t values (${Number(id)}, ${JSON.stringify(metadata)}::jsonb)`);
  }
});
afterAll(() => close());

async function matching(filter: unknown): Promise<number[]> {
  const where = compileFilter(filter, sql`metadata`);
  const result = await db.execute<{ id: number }>(sql`select id from t where ${where} order by id`);
  return (result as unknown as { rows: { id: number }[] }).rows.map((r) => r.id);
}

describe("filter semantics", () => {
  it.each([
    ["empty filter matches everything", {}, [1, 2, 3, 4, 5]],
    ["implicit $eq on a string", { genre: "drama" }, [1, 3]],
    ["explicit $eq", { genre: { $eq: "comedy" } }, [2]],
    ["$eq on a number is type-strict", { year: 2020 }, [1]],
    ["$eq on a numeric string is type-strict", { year: "2020" }, [3]],
    ["$eq on a float", { rating: 4.5 }, [1]],
    ["$eq on a boolean", { draft: false }, [1]],
    ["string matches a list containing it", { tags: "b" }, [1, 2]],
    ["$ne matches missing fields", { genre: { $ne: "drama" } }, [2, 4, 5]],
    ["$ne on a list matches only when no element is equal", { tags: { $ne: "a" } }, [2, 3, 4, 5]],
    ["$gt takes only numeric fields", { year: { $gt: 2019 } }, [1, 4]],
    ["$gte", { year: { $gte: 2020 } }, [1, 4]],
    ["$lt", { rating: { $lt: 4 } }, [2]],
    ["$lte", { rating: { $lte: 4.5 } }, [1, 2]],
    ["two operators on one field are ANDed", { year: { $gt: 2019, $lt: 2021 } }, [1]],
    ["two fields are ANDed", { genre: "drama", year: 2020 }, [1]],
    ["$in with strings", { genre: { $in: ["comedy", "horror"] } }, [2]],
    ["$in with mixed strings and numbers", { year: { $in: [2019, "2020"] } }, [2, 3]],
    ["$in matches list elements", { tags: { $in: ["a", "z"] } }, [1]],
    ["empty $in matches nothing", { genre: { $in: [] } }, []],
    ["$nin matches missing fields", { genre: { $nin: ["drama"] } }, [2, 4, 5]],
    ["$nin on lists", { tags: { $nin: ["b"] } }, [3, 4, 5]],
    ["empty $nin matches everything", { genre: { $nin: [] } }, [1, 2, 3, 4, 5]],
    ["$exists true", { rating: { $exists: true } }, [1, 2]],
    ["$exists false", { rating: { $exists: false } }, [3, 4, 5]],
    ["$and", { $and: [{ genre: "drama" }, { year: { $gte: 2020 } }] }, [1]],
    ["$or", { $or: [{ genre: "comedy" }, { year: 2021 }] }, [2, 4]],
    [
      "nested $or inside $and",
      { $and: [{ $or: [{ genre: "drama" }, { genre: "comedy" }] }, { draft: true }] },
      [2],
    ],
    ["field $not negates including missing", { year: { $not: { $gt: 2019 } } }, [2, 3, 5]],
    ["top-level $not", { $not: { genre: "drama" } }, [2, 4, 5]],
    ["hostile values are data", { author: "O'Brien; DROP TABLE t; --" }, [4]],
    ["hostile keys are data", { "weird key'\"": "x" }, [4]],
    ["unknown fields match nothing on $eq", { nope: "x" }, []],
    [
      "long $in lists use the set path",
      { year: { $in: [...Array.from({ length: 100 }, (_, i) => 3000 + i), 2021] } },
      [4],
    ],
    [
      "long $in lists match list elements",
      { tags: { $in: [...Array.from({ length: 100 }, (_, i) => `t${i}`), "a"] } },
      [1],
    ],
    [
      "long $nin lists",
      { genre: { $nin: [...Array.from({ length: 100 }, (_, i) => `g${i}`), "drama"] } },
      [2, 4, 5],
    ],
  ])("%s", async (_, filter, expected) => {
    expect(await matching(filter)).toEqual(expected);
  });
});

describe("invalid filters name the offending path", () => {
  it.each([
    ["not an object", [], "filter"],
    ["unknown top-level operator", { $nor: [] }, "filter.$nor"],
    ["unknown field operator", { year: { $regex: "x" } }, "filter.year.$regex"],
    ["range with a string", { year: { $gt: "2019" } }, "filter.year.$gt"],
    ["range with NaN-like values", { year: { $gt: null } }, "filter.year.$gt"],
    ["$in not an array", { year: { $in: 2019 } }, "filter.year.$in"],
    ["$in with an object", { year: { $in: [{}] } }, "filter.year.$in[0]"],
    ["$in with a boolean", { year: { $in: [true] } }, "filter.year.$in[0]"],
    ["$exists not boolean", { year: { $exists: 1 } }, "filter.year.$exists"],
    ["$and empty", { $and: [] }, "filter.$and"],
    ["$or with a non-object", { $or: [1] }, "filter.$or[0]"],
    ["$eq with an array", { tags: { $eq: ["a"] } }, "filter.tags.$eq"],
    ["bare array value", { tags: ["a"] }, "filter.tags"],
    ["null value", { genre: null }, "filter.genre"],
    ["empty operator object", { genre: {} }, "filter.genre"],
    ["$not empty", { genre: { $not: {} } }, "filter.genre.$not"],
    [
      "nested error path",
      { $and: [{ year: 1 }, { $or: [{ x: { $lt: "a" } }] }] },
      "filter.$and[1].$or[0].x.$lt",
    ],
  ])("%s", (_, filter, path) => {
    expect(() => compileFilter(filter, sql`metadata`)).toThrow(
      expect.objectContaining({ code: "bad_request", path }),
    );
  });

  it("limits $in to 10,000 values", () => {
    const values = Array.from({ length: MAX_IN_VALUES + 1 }, (_, i) => i);
    expect(() => compileFilter({ x: { $in: values } }, sql`metadata`)).toThrow(
      expect.objectContaining({ path: "filter.x.$in" }),
    );
  });

  it("limits nesting depth", () => {
    let deep: Record<string, unknown> = { x: 1 };
    for (let i = 0; i < 40; i++) deep = { $and: [deep] };
    expect(() => compileFilter(deep, sql`metadata`)).toThrow(
      expect.objectContaining({ code: "bad_request" }),
    );
  });

  it("binds every value and key as a parameter", () => {
    const compiled = compileFilter(
      { "k'; drop": { $in: ["v'; drop"] }, n: { $gt: 1 } },
      sql`metadata`,
    );
    const query = (
      db as unknown as { dialect: { sqlToQuery(s: unknown): { sql: string } } }
    ).dialect.sqlToQuery(compiled);
    expect(query.sql).not.toContain("drop");
  });
});
