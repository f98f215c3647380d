import { beforeAll, describe, expect, it } from "vitest";
import { call, expectEnvelope, getWithBody } from "./support/client.ts";
import { postEndpoint } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant("logs");
});

/** An endpoint with `count` completions, and their usage ids oldest first. */
async function endpointWithLogs(count: number) {
  const created = await postEndpoint(tenant.key, {
    name: "l",
    model: "local/echo",
    prompt: "Question {{n}}",
    temperature: 0.7,
  });
  const id: string = created.body.id;
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const reply = await call(`/api/endpoints/${id}/completions`, {
      method: "POST",
      token: tenant.key,
      body: { values: { n: String(n) }, prompt: [] },
    });
    expect(reply.status).toBe(200);
    ids.push(reply.body.choices[0].usage_id);
  }
  return { id, ids };
}

const rate = (id: string, body: unknown, token: string = tenant.key) =>
  call(`/endpoints/${id}/logs`, { method: "PATCH", token, body });

/** A comment's time as E10 shows it: ISO 8601, UTC. */
const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
describe("E7 list logs", () => {
  it("lists newest first, in the API contract's listing form, paged by a JSON body or the query string", async () => {
    const { id, ids } = await endpointWithLogs(4);
    const all = await getWithBody(`/endpoints/${id}/logs`, {}, tenant.key);
    expect(all.status).toBe(200);
    expect(all.body.map((l: { id: string }) => l.id)).toEqual([...ids].reverse());
    expect(all.body[0]).toEqual({
      id: ids[3],
      user_id: tenant.keyId,
      endpoint_id: id,
      timestamp: { value: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
      model: "echo",
      prompt: JSON.stringify("Question 3"),
      completion: "Question 3",
      positive_rating: null,
      values: { n: "3" },
      search_results: "[]",
      status: JSON.stringify({ status: 200 }),
      deployment_id: 1,
      latency: expect.any(Number),
      // echo counts words: "Question 3" is two tokens each way, and costs nothing
      prompt_tokens: 2,
      completion_tokens: 2,
      cost: 0,
      comments: [],
    });

    const byBody = await getWithBody(
      `/endpoints/${id}/logs`,
      { page: 2, page_size: 3 },
      tenant.key,
    );
    expect(byBody.body.map((l: { id: string }) => l.id)).toEqual([ids[0]]);
    const byQuery = await call(`/endpoints/${id}/logs?page=1&page_size=2`, { token: tenant.key });
    expect(byQuery.body.map((l: { id: string }) => l.id)).toEqual([ids[3], ids[2]]);
  });

  it("rejects bad paging (400) and needs a key of the endpoint's project (401)", async () => {
    const { id } = await endpointWithLogs(1);
    const zero = await getWithBody(`/endpoints/${id}/logs`, { page: 0 }, tenant.key);
    expect(expectEnvelope(zero, 400, "bad_request").message).toContain("page");
    const big = await getWithBody(`/endpoints/${id}/logs`, { page_size: 1001 }, tenant.key);
    expect(expectEnvelope(big, 400, "bad_request").message).toContain("page_size");
    expectEnvelope(await call(`/endpoints/${id}/logs`), 401, "unauthorized");
    const other = await createTenant("logs-other");
    expectEnvelope(await call(`/endpoints/${id}/logs`, { token: other.key }), 401, "unauthorized");
    expectEnvelope(await call("/endpoints/ep_nope/logs", { token: tenant.key }), 404, "not_found");
  });
});

describe("E15 ratings", () => {
  it("rates one log (single form) and answers the API contract's rating form", async () => {
    const { id, ids } = await endpointWithLogs(1);
    const reply = await rate(id, { usage_id: ids[0], positive_rating: false });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      user_id: tenant.keyId,
      project_id: tenant.projectId,
      timestamp: expect.stringMatching(/Z$/),
      provider_name: "echo",
      cost: 0,
      prompt: "Question 0",
      completion: "Question 0",
      id: ids[0],
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      rating: -1,
      temp: expect.closeTo(0.7, 5),
      completions: null,
      managed: true,
      positive_rating: false,
      template_id: id,
      values: { n: "0" },
    });
    const [log] = (await getWithBody(`/endpoints/${id}/logs`, {}, tenant.key)).body;
    expect(log.positive_rating).toBe(false);
  });

  it("rates a batch and answers the updated logs in the order given", async () => {
    const { id, ids } = await endpointWithLogs(3);
    const reply = await rate(id, {
      logs: [
        { usage_id: ids[1], positive_rating: true },
        { usage_id: ids[0], positive_rating: false },
      ],
    });
    expect(reply.status).toBe(200);
    expect(
      reply.body.map((l: { id: string; positive_rating: boolean }) => [l.id, l.positive_rating]),
    ).toEqual([
      [ids[1], true],
      [ids[0], false],
    ]);
  });

  it("changes nothing when a batch names an unknown usage_id (404)", async () => {
    const { id, ids } = await endpointWithLogs(2);
    const reply = await rate(id, {
      logs: [
        { usage_id: ids[0], positive_rating: true },
        { usage_id: "00000000-0000-4000-8000-000000000000", positive_rating: true },
      ],
    });
    expect(expectEnvelope(reply, 404, "not_found").message).toContain("00000000-0000-4000-8000");
    const listed = (await getWithBody(`/endpoints/${id}/logs`, {}, tenant.key)).body;
    expect(listed.map((l: { positive_rating: unknown }) => l.positive_rating)).toEqual([
      null,
      null,
    ]);
  });

  it("rejects a body with neither form (400) and another project's key (401)", async () => {
    const { id, ids } = await endpointWithLogs(1);
    expectEnvelope(await rate(id, { positive_rating: true }), 400, "bad_request");
    const other = await createTenant("logs-rate-other");
    expectEnvelope(
      await rate(id, { usage_id: ids[0], positive_rating: true }, other.key),
      401,
      "unauthorized",
    );
  });
});

describe("E10 comments", () => {
  it("adds comments by the key's name and email unless the body names someone", async () => {
    const { id, ids } = await endpointWithLogs(1);
    const path = `/endpoints/${id}/logs/${ids[0]}/comments`;
    const first = await call(path, {
      method: "POST",
      token: tenant.key,
      body: { comment: "Vague." },
    });
    expect(first.status).toBe(200);
    const second = await call(path, {
      method: "POST",
      token: tenant.key,
      body: { comment: "Better.", name: "Rita", email: "rita@example.com" },
    });
    expect(second.body).toEqual({
      prompt: "Question 0",
      completion: "Question 0",
      id: ids[0],
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      positive_rating: null,
      variant_id: "1",
      comments: [
        { name: "logs-key", email: "logs@example.com", comment: "Vague.", created_at: at },
        { name: "Rita", email: "rita@example.com", comment: "Better.", created_at: at },
      ],
    });
  });

  it("is a 404 for an unknown log and a 400 without a comment", async () => {
    const { id, ids } = await endpointWithLogs(1);
    const unknown = await call(`/endpoints/${id}/logs/nope/comments`, {
      method: "POST",
      token: tenant.key,
      body: { comment: "x" },
    });
    expectEnvelope(unknown, 404, "not_found");
    const empty = await call(`/endpoints/${id}/logs/${ids[0]}/comments`, {
      method: "POST",
      token: tenant.key,
      body: {},
    });
    expect(expectEnvelope(empty, 400, "bad_request").message).toContain("comment");
  });
});
