import { logs } from "@quarry/db";
import { eq, sql } from "drizzle-orm";
import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import {
  BadRequestError,
  CompletionInput,
  commentOnLog,
  completeEndpoint,
  createEndpoint,
  exportLogs,
  type ListLogsInput,
  type LogExportRecord,
  listLogs,
  logCursor,
  type ProjectContext,
  pageOfLogs,
  parseExportLogsParams,
  parseInput,
  parseListLogsParams,
  rateLogs,
} from "../src/index.ts";
import type { LogCursor } from "../src/logs/log-filters.ts";
import { useFreshDatabase } from "./support/database.ts";
import { type PlanNode, planNodes } from "./support/plan-nodes.ts";
import { createTenant } from "./support/tenant.ts";

/** Issue 16 item 7: E7's filters and the log export, on the domain. */

const database = useFreshDatabase();

const caller = { keyId: "key_a", keyName: "Reviewer", keyEmail: "r@example.com" };
const DAY = 86_400_000;
const BASE = Date.parse("2024-05-10T12:00:00Z");

let ctx: ProjectContext;
let endpointId: string;
/** log ids by n (0…7), and what each log is */
const ids: string[] = [];

// n: user, created (days after BASE), rating, comments; n = 6 failed (502); every completion
// text has a quote, a comma and a line break, which CSV must carry exactly.
beforeAll(async () => {
  ({ ctx } = await createTenant(database.db, "log-review"));
  const endpoint = await createEndpoint(ctx, {
    name: "review",
    model: "local/echo",
    prompt: "{{q}}",
  });
  endpointId = endpoint.id;
  for (let n = 0; n < 8; n++) {
    const reply = await completeEndpoint(
      ctx,
      endpointId,
      parseInput(CompletionInput, {
        values: { q: `Answer ${n}: "quoted", with a comma\nand a second line` },
        prompt: [],
        ...(n % 2 === 0 ? { user: "alice" } : {}),
      }),
      { callerId: caller.keyId },
    );
    ids.push(reply.choices[0]!.usage_id);
  }
  for (const [n, id] of ids.entries()) {
    await database.db
      .update(logs)
      .set({
        createdAt: new Date(BASE + n * DAY),
        ...(n === 6 ? { status: 502, error: "provider down" } : {}),
      })
      .where(eq(logs.id, id));
  }
  await rateLogs(ctx, endpointId, {
    logs: [
      { usage_id: ids[1]!, positive_rating: true },
      { usage_id: ids[2]!, positive_rating: true },
      { usage_id: ids[3]!, positive_rating: false },
    ],
  });
  await commentOnLog(ctx, endpointId, ids[2]!, { comment: "Good, but long." }, caller);
  await commentOnLog(ctx, endpointId, ids[2]!, { comment: 'Says "always", twice' }, caller);
  await commentOnLog(ctx, endpointId, ids[5]!, { comment: "Wrong policy." }, caller);
});

/** E7 with these parameters (as the query string sends them), as log numbers newest first. */
async function listed(params: Record<string, unknown>): Promise<number[]> {
  const page = await listLogs(ctx, endpointId, parseListLogsParams(params));
  return page.map((log) => ids.indexOf(log.id));
}

describe("E7 filters", () => {
  it.each([
    [{}, [7, 6, 5, 4, 3, 2, 1, 0]],
    [{ rating: "positive" }, [2, 1]],
    [{ rating: "negative" }, [3]],
    [{ rating: "unrated" }, [7, 6, 5, 4, 0]],
    [{ has_comments: "true" }, [5, 2]],
    [{ has_comments: false }, [7, 6, 4, 3, 1, 0]],
    [{ user: "alice" }, [6, 4, 2, 0]],
    [{ user: "key_a" }, [7, 5, 3, 1]],
    [{ status: "502" }, [6]],
    [{ status: 200, user: "alice" }, [4, 2, 0]],
    [{ since: "2024-05-13" }, [7, 6, 5, 4, 3]],
    [{ until: "2024-05-12T12:00:00Z" }, [2, 1, 0]],
    [{ since: "2024-05-11T12:00:00+00:00", until: "2024-05-13T12:00" }, [3, 2, 1]],
    [{ rating: "positive", has_comments: "true", user: "alice" }, [2]],
    [{ rating: "unrated", page: 2, page_size: 2 }, [5, 4]],
  ])("%j → logs %j", async (params, expected) => {
    expect(await listed(params)).toEqual(expected);
  });

  it.each([
    [5, {}, [4, 3, 2, 1, 0]],
    [5, { user: "alice" }, [4, 2, 0]],
    [4, { user: "alice" }, [2, 0]],
    [7, { page: 2, page_size: 2 }, [4, 3]],
    [6, { since: "2024-05-13" }, [5, 4, 3]],
    [0, {}, []],
  ])(
    "after log %i, %j → logs %j (the log need not match the filters)",
    async (n, params, expected) => {
      expect(await listed({ ...params, after: ids[n] })).toEqual(expected);
    },
  );

  it("refuses `after` naming a log of another endpoint, or none", async () => {
    const other = await createEndpoint(ctx, { name: "other", model: "local/echo", prompt: "x" });
    for (const after of ["no-such-log", ids[0]!]) {
      const listing = listLogs(ctx, other.id, parseListLogsParams({ after }));
      await expect(listing).rejects.toThrow(BadRequestError);
      await expect(listing).rejects.toThrow(/^after: /);
    }
  });

  it.each([
    [{ rating: "good" }, "rating"],
    [{ rating: 1 }, "rating"],
    [{ has_comments: "yes" }, "has_comments"],
    [{ has_comments: 1 }, "has_comments"],
    [{ since: "yesterday" }, "since"],
    [{ since: "2024-02-30" }, "since"],
    [{ until: "2024-05-01T25:00:00Z" }, "until"],
    [{ user: "" }, "user"],
    [{ user: "a\u0000b" }, "user"],
    [{ status: "abc" }, "status"],
    [{ status: 99 }, "status"],
    [{ status: "200.5" }, "status"],
    [{ page: "0" }, "page"],
    [{ page_size: 1001 }, "page_size"],
    [{ colour: "red" }, "colour"],
    [{ after: "" }, "after"],
    [{ after: 7 }, "after"],
  ])("refuses %j naming %s", (params, name) => {
    const error = (() => {
      try {
        parseListLogsParams(params);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message.startsWith(`${name}: `)).toBe(true);
  });
});

/**
 * An endpoint of its own with seven logs whose times tie by threes, in microseconds a JS Date
 * cannot hold: a cursor must be Postgres's own value and break ties by id.
 */
async function endpointWithTiedLogs(name: string) {
  const { ctx: own } = await createTenant(database.db, name);
  const endpoint = await createEndpoint(own, {
    name: "ties",
    model: "local/echo",
    prompt: "t{{n}}",
  });
  for (let n = 0; n < 7; n++) {
    await completeEndpoint(
      own,
      endpoint.id,
      parseInput(CompletionInput, { values: { n }, prompt: [] }),
      {
        callerId: "k",
      },
    );
  }
  await database.db.execute(
    sql`UPDATE logs SET created_at = '2024-01-01 00:00:00.123456+00'::timestamptz
        + ((values->>'n')::int / 3) * interval '1 microsecond' WHERE endpoint_id = ${endpoint.id}`,
  );
  return { own, endpoint };
}

/** Logs added by SQL for the deep pages. */
const DEEP_LOGS = 100_000;

describe("E7 pages after a log", () => {
  it("walks every log once from the last of each page, ties included, unshifted by new logs", async () => {
    const { own, endpoint } = await endpointWithTiedLogs("after-ties");
    const page = async (params: Record<string, unknown>) =>
      (await listLogs(own, endpoint.id, parseListLogsParams(params))).map((log) => log.id);
    const all = await page({});
    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const next = await page({ page_size: "2", ...(after ? { after } : {}) });
      walked.push(...next);
      if (next.length < 2) break;
      after = next.at(-1);
    }
    expect(walked).toEqual(all);
    expect(new Set(walked).size).toBe(7);
    // A newer log shifts every offset page by one; a page after a log stays where it was.
    await completeEndpoint(
      own,
      endpoint.id,
      parseInput(CompletionInput, { values: { n: 7 }, prompt: [] }),
      {
        callerId: "k",
      },
    );
    expect(await page({ page: 2, page_size: 2 })).toEqual(all.slice(1, 3));
    expect(await page({ after: all[1], page_size: 2 })).toEqual(all.slice(2, 4));
  });

  it("walks the index from the log a deep page follows, where a page number walks every log it skips", async () => {
    const { own, endpoint } = await endpointWithTiedLogs("after-deep");
    // 100,000 more logs, a second apart, by SQL: completions would take hours. (A planner
    // without statistics takes a table's size from its pages: so many that an endpoint's logs
    // are too many to sort for a page.)
    await database.db.execute(sql`
      INSERT INTO logs (id, project_id, endpoint_id, deployment_id, user_id, model,
                        service_model_name, prompt, status, created_at)
      SELECT 'deep-' || g, ${own.projectId}, ${endpoint.id}, 1, 'k', 'echo', 'local/echo',
             '"q"'::jsonb, 200, '2025-01-01'::timestamptz + g * interval '1 second'
      FROM generate_series(1, ${DEEP_LOGS}::int) g`);
    // The 2,000th newest log; page 41 of 50 holds the 50 after it.
    const last = `deep-${DEEP_LOGS - 1999}`;
    const expected = Array.from({ length: 50 }, (_, i) => `deep-${DEEP_LOGS - 2000 - i}`);
    const byNumber = parseListLogsParams({ page: 41, page_size: 50 });
    const byLog = parseListLogsParams({ after: last, page_size: 50 });
    const cursor = await logCursor(own, endpoint.id, last);
    for (const input of [byNumber, byLog]) {
      const page = await listLogs(own, endpoint.id, input);
      expect(page.map((log) => log.id)).toEqual(expected);
    }
    /** How many logs the page's plan reads from the table (by any index, or none). */
    const logsRead = async (input: ListLogsInput, at?: LogCursor) => {
      const { sql: text, params } = pageOfLogs(own, endpoint, input, at).toSQL();
      const [row] = await database.fresh.sql<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
        `explain (analyze, format json) ${text}`,
        params,
      );
      const scans = planNodes(row!).filter((n) => n["Relation Name"] === "logs");
      return scans.reduce(
        (sum, n) =>
          sum + (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0)) * n["Actual Loops"],
        0,
      );
    };
    // Without statistics (a table just filled; PGlite's, always) as with them: the endpoint's
    // index walked to the end of the page, from the log for `after`. Testing the logs' project
    // too, the planner took an endpoint's logs for ~2 rows and read all of them for each page
    // (those after the log, for `after`) to sort them.
    for (const statistics of ["without", "with"]) {
      if (statistics === "with") await database.db.execute(sql`ANALYZE logs`);
      expect(await logsRead(parseListLogsParams({ page_size: 50 })), statistics).toBe(50);
      expect(await logsRead(byLog, cursor), statistics).toBe(50);
      // A page number walks (or, without statistics, sorts) every log it skips.
      expect(await logsRead(byNumber), statistics).toBeGreaterThanOrEqual(2050);
    }
  });
});

async function exported(params: Record<string, unknown>, batchSize?: number) {
  const out = await exportLogs(ctx, endpointId, parseExportLogsParams(params), { batchSize });
  const text = await new Response(out.body).text();
  await out.finished;
  return { out, text };
}

describe("log export", () => {
  it("writes one JSON Lines record per log, newest first, with its rating and comments", async () => {
    const { out, text } = await exported({ format: "jsonl" }, 3);
    expect(out.contentType).toBe("application/x-ndjson; charset=utf-8");
    expect(out.contentDisposition).toBe('attachment; filename="review-logs.jsonl"');
    expect(text.endsWith("\n")).toBe(true);
    const records = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as LogExportRecord);
    expect(records.map((r) => ids.indexOf(r.id))).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    expect(records[5]).toEqual({
      id: ids[2],
      timestamp: "2024-05-12T12:00:00.000Z",
      endpoint_id: endpointId,
      deployment_id: 1,
      user_id: "alice",
      model: "echo",
      status: 200,
      error: null,
      rating: "positive",
      positive_rating: true,
      latency_ms: expect.any(Number),
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      cost: 0,
      prompt: 'Answer 2: "quoted", with a comma\nand a second line',
      completion: 'Answer 2: "quoted", with a comma\nand a second line',
      values: { q: 'Answer 2: "quoted", with a comma\nand a second line' },
      search_results: [],
      comments: [
        {
          name: "Reviewer",
          email: "r@example.com",
          comment: "Good, but long.",
          created_at: expect.any(String),
        },
        {
          name: "Reviewer",
          email: "r@example.com",
          comment: 'Says "always", twice',
          created_at: expect.any(String),
        },
      ],
    });
    expect(records[1]).toMatchObject({ status: 502, error: "provider down", rating: "unrated" });
    expect(records[4]).toMatchObject({ rating: "negative", positive_rating: false, comments: [] });
  });

  it("writes RFC 4180 CSV that reads back to the same cells, filtered like E7", async () => {
    const { out, text } = await exported({ format: "csv", user: "alice" }, 2);
    expect(out.contentType).toBe("text/csv; charset=utf-8; header=present");
    expect(out.contentDisposition).toBe('attachment; filename="review-logs.csv"');
    expect(
      text.startsWith("id,timestamp,endpoint_id,deployment_id,user_id,model,status,error,rating,"),
    ).toBe(true);
    const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => ids.indexOf(r.id!))).toEqual([6, 4, 2, 0]);
    const two = parsed.data[2]!;
    expect(two.completion).toBe('Answer 2: "quoted", with a comma\nand a second line');
    expect(two.rating).toBe("positive");
    expect(two.positive_rating).toBe("true");
    expect(two.error).toBe("");
    expect(JSON.parse(two.comments!).map((c: { comment: string }) => c.comment)).toEqual([
      "Good, but long.",
      'Says "always", twice',
    ]);
    expect(JSON.parse(two.values!)).toEqual({ q: two.completion });
    expect(parsed.data[0]!.status).toBe("502");
    // every record line ends in CRLF; line breaks inside quoted cells are the data's own
    expect(text.endsWith('"[]"\r\n') || text.endsWith(']"\r\n') || text.endsWith("\r\n")).toBe(
      true,
    );
  });

  it("pages by keyset: logs with the same timestamp are all exported once, in E7's order", async () => {
    const { own, endpoint } = await endpointWithTiedLogs("export-ties");
    const all = await listLogs(own, endpoint.id, parseListLogsParams({}));
    const out = await exportLogs(own, endpoint.id, parseExportLogsParams({}), { batchSize: 2 });
    const text = await new Response(out.body).text();
    const exportedIds = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).id);
    expect(exportedIds).toEqual(all.map((l) => l.id));
    expect(new Set(exportedIds).size).toBe(7);
  });

  it("produces the body batch by batch, as the reader pulls", async () => {
    const out = await exportLogs(ctx, endpointId, parseExportLogsParams({}), { batchSize: 3 });
    const reader = out.body.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first.trimEnd().split("\n")).toHaveLength(3);
    const second = new TextDecoder().decode((await reader.read()).value);
    expect(second.trimEnd().split("\n")).toHaveLength(3);
    await reader.cancel();
    await out.finished;
  });

  it("writes only the CSV header when nothing matches, and refuses an unknown format", async () => {
    const { text } = await exported({ format: "csv", status: 404 });
    expect(text.split("\r\n")).toHaveLength(2);
    expect(() => parseExportLogsParams({ format: "xml" })).toThrow(/^format: /);
    expect(() => parseExportLogsParams({ page: 1 })).toThrow(/^page: unknown parameter/);
  });
});
