import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { call } from "./support/client.ts";
import { postEndpoint } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

/**
 * Issue 15 item 8: a chat completion whose template sends a system message leaves no AI SDK
 * warning in the workers' console (we send system messages on purpose), checked in the log
 * of the real workerd the stack runs.
 */
const workerLog = inject("workerLog");
let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant("console");
});

describe.skipIf(!workerLog)("the workers' console during chat completions", () => {
  it("has no system-message warning from the AI SDK", async () => {
    const before = (await readFile(workerLog, "utf8")).length;
    const created = await postEndpoint(tenant.key, {
      name: "with-system",
      model: "openai/reply",
      messages: [
        { role: "system", content: "You answer in one sentence." },
        { role: "user", content: "{{last_user_message}}" },
      ],
    });
    expect(created.status).toBe(201);
    for (const stream of [false, true]) {
      const reply = await call(`/api/endpoints/${created.body.id}/chat/completions`, {
        method: "POST",
        token: tenant.key,
        body: { messages: [{ role: "user", content: "Why is the sky blue?" }], stream },
      });
      expect(reply.status, reply.text).toBe(200);
    }
    // Console output reaches the log file through wrangler's pipe: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const written = (await readFile(workerLog, "utf8")).slice(before);
    expect(written).not.toMatch(/AI SDK Warning/i);
    expect(written).not.toMatch(/system messages/i);
  });
});
