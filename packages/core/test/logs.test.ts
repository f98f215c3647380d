import { logs } from "@quarry/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  CommentOnLogInput,
  CompletionInput,
  commentOnLog,
  completeEndpoint,
  createEndpoint,
  listLogs,
  NotFoundError,
  type ProjectContext,
  parseInput,
  RateLogsInput,
  rateLogs,
  UnauthorizedError,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

const caller = { keyId: "key_a", keyName: "ops key", keyEmail: "ops@example.com" };

/** An endpoint with `count` completions (real ones, through local/echo), oldest first. */
async function endpointWithLogs(ctx: ProjectContext, count: number) {
  const endpoint = await createEndpoint(ctx, {
    name: "e",
    model: "local/echo",
    prompt: "Question {{n}}",
    temperature: 0.4,
  });
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const reply = await completeEndpoint(
      ctx,
      endpoint.id,
      parseInput(CompletionInput, { values: { n }, prompt: [] }),
      { callerId: caller.keyId },
    );
    ids.push(reply.choices[0]!.usage_id);
  }
  return { endpointId: endpoint.id, ids };
}

/** A comment's time as E10 shows it: ISO 8601, UTC. */
const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
describe("E7 list logs", () => {
  it("lists newest first in the API contract's listing form, page by page", async () => {
    const { ctx } = await createTenant(database.db, "logs-list");
    const { endpointId, ids } = await endpointWithLogs(ctx, 5);
    const all = await listLogs(ctx, endpointId, { page: 1, page_size: 50 });
    expect(all.map((l) => l.id)).toEqual([...ids].reverse());
    const newest = all[0]!;
    expect(newest).toEqual({
      id: ids[4],
      user_id: "key_a",
      endpoint_id: endpointId,
      timestamp: { value: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
      model: "echo",
      prompt: JSON.stringify("Question 4"),
      completion: "Question 4",
      positive_rating: null,
      values: { n: 4 },
      search_results: "[]",
      status: JSON.stringify({ status: 200 }),
      deployment_id: 1,
      latency: expect.any(Number),
      // echo counts words: "Question 4" is two tokens each way, and costs nothing
      prompt_tokens: 2,
      completion_tokens: 2,
      cost: 0,
      comments: [],
    });

    const page2 = await listLogs(ctx, endpointId, { page: 2, page_size: 2 });
    expect(page2.map((l) => l.id)).toEqual([ids[2], ids[1]]);
    expect(await listLogs(ctx, endpointId, { page: 4, page_size: 2 })).toEqual([]);
  });

  it("shows a failed completion's status and error", async () => {
    const { ctx } = await createTenant(database.db, "logs-failed");
    const endpoint = await createEndpoint(ctx, { name: "f", model: "openai/x", prompt: "p" });
    // no OPENAI_API_KEY in this context: the model cannot be called
    await expect(
      completeEndpoint(ctx, endpoint.id, parseInput(CompletionInput, { prompt: "" }), {
        callerId: caller.keyId,
      }),
    ).rejects.toThrow(/OPENAI_API_KEY/);
    const [log] = await listLogs(ctx, endpoint.id, { page: 1, page_size: 10 });
    const status = JSON.parse(log?.status ?? "{}");
    expect(status.status).toBe(502);
    expect(status.error).toContain("OPENAI_API_KEY");
  });

  it("refuses another project's endpoint (401) and an unknown one (404)", async () => {
    const { ctx } = await createTenant(database.db, "logs-owner");
    const { ctx: other } = await createTenant(database.db, "logs-other");
    const { endpointId } = await endpointWithLogs(ctx, 1);
    await expect(listLogs(other, endpointId, { page: 1, page_size: 10 })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await expect(listLogs(ctx, "ep_nope", { page: 1, page_size: 10 })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe("E15 ratings", () => {
  it("rates one log and answers in the API contract's rating form", async () => {
    const { ctx } = await createTenant(database.db, "rate-one");
    const { endpointId, ids } = await endpointWithLogs(ctx, 2);
    const rated = await rateLogs(ctx, endpointId, { usage_id: ids[0], positive_rating: true });
    expect(rated).toEqual({
      user_id: "key_a",
      project_id: ctx.projectId,
      timestamp: expect.stringMatching(/Z$/),
      provider_name: "echo",
      cost: 0,
      prompt: "Question 0",
      completion: "Question 0",
      id: ids[0],
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      rating: 1,
      temp: expect.closeTo(0.4, 5),
      completions: null,
      managed: true,
      positive_rating: true,
      template_id: endpointId,
      values: { n: 0 },
    });
    const [other] = await database.db.select().from(logs).where(eq(logs.id, ids[1]!));
    expect(other?.positiveRating).toBeNull();
  });

  it("rates a batch, answering every log in the order given", async () => {
    const { ctx } = await createTenant(database.db, "rate-batch");
    const { endpointId, ids } = await endpointWithLogs(ctx, 3);
    const rated = await rateLogs(ctx, endpointId, {
      logs: [
        { usage_id: ids[2]!, positive_rating: false },
        { usage_id: ids[0]!, positive_rating: true },
      ],
    });
    expect(Array.isArray(rated)).toBe(true);
    expect((rated as { id: string; rating: number }[]).map((r) => [r.id, r.rating])).toEqual([
      [ids[2], -1],
      [ids[0], 1],
    ]);
    const listed = await listLogs(ctx, endpointId, { page: 1, page_size: 10 });
    expect(listed.map((l) => l.positive_rating)).toEqual([false, null, true]);
  });

  it("changes nothing when one usage_id of a batch is unknown (404)", async () => {
    const { ctx } = await createTenant(database.db, "rate-atomic");
    const { endpointId, ids } = await endpointWithLogs(ctx, 2);
    const { ids: elsewhere } = await endpointWithLogs(ctx, 1);
    for (const stranger of ["no-such-log", elsewhere[0]!]) {
      const error = await rateLogs(ctx, endpointId, {
        logs: [
          { usage_id: ids[0]!, positive_rating: true },
          { usage_id: stranger, positive_rating: true },
          { usage_id: ids[1]!, positive_rating: false },
        ],
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as Error).message).toContain(stranger);
    }
    const listed = await listLogs(ctx, endpointId, { page: 1, page_size: 10 });
    expect(listed.map((l) => l.positive_rating)).toEqual([null, null]);
  });

  it.each([
    [{}, "usage_id"],
    [{ usage_id: "x" }, "positive_rating"],
    [{ logs: [] }, "logs"],
    [{ logs: [{ usage_id: "x", positive_rating: "yes" }] }, "logs[0].positive_rating"],
    [{ logs: [{ usage_id: "x", positive_rating: true }], usage_id: "x" }, "logs"],
  ])("rejects %j naming %s", async (body, field) => {
    const { ctx } = await createTenant(database.db, "rate-bad");
    const { endpointId } = await endpointWithLogs(ctx, 1);
    const error = await Promise.resolve()
      .then(() => rateLogs(ctx, endpointId, parseInput(RateLogsInput, body)))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message.startsWith(`${field}:`)).toBe(true);
  });
});

describe("E10 comments", () => {
  it("adds comments, from the body's name and email or else the key's", async () => {
    const { ctx } = await createTenant(database.db, "comments");
    const { endpointId, ids } = await endpointWithLogs(ctx, 1);
    const logId = ids[0]!;
    await commentOnLog(ctx, endpointId, logId, { comment: "Too short." }, caller);
    const reply = await commentOnLog(
      ctx,
      endpointId,
      logId,
      { comment: "Good sources.", name: "Ada", email: "ada@example.com" },
      caller,
    );
    expect(reply).toEqual({
      prompt: "Question 0",
      completion: "Question 0",
      id: logId,
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      positive_rating: null,
      variant_id: "1",
      comments: [
        { name: "ops key", email: "ops@example.com", comment: "Too short.", created_at: at },
        { name: "Ada", email: "ada@example.com", comment: "Good sources.", created_at: at },
      ],
    });
    const anonymous = await commentOnLog(
      ctx,
      endpointId,
      logId,
      { comment: "x" },
      {
        keyId: "key_b",
        keyName: null,
        keyEmail: null,
      },
    );
    expect(anonymous.comments.at(-1)).toEqual({
      name: "key_b",
      email: "",
      comment: "x",
      created_at: at,
    });
    // E7 lists a log's comments beside it, oldest first
    const [listed] = await listLogs(ctx, endpointId, { page: 1, page_size: 50 });
    expect(listed?.comments.map((c) => c.comment)).toEqual(["Too short.", "Good sources.", "x"]);
  });

  it("is a 404 for a log of another endpoint and a 400 without a comment", async () => {
    const { ctx } = await createTenant(database.db, "comments-bad");
    const { endpointId } = await endpointWithLogs(ctx, 1);
    const { ids: elsewhere } = await endpointWithLogs(ctx, 1);
    await expect(
      commentOnLog(ctx, endpointId, elsewhere[0]!, { comment: "x" }, caller),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      Promise.resolve().then(() =>
        commentOnLog(
          ctx,
          endpointId,
          elsewhere[0]!,
          parseInput(CommentOnLogInput, { comment: " " }),
          caller,
        ),
      ),
    ).rejects.toThrow("comment:");
  });
});
