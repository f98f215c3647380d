import { beforeAll, describe, expect, it } from "vitest";
import { isDevProxyLoss } from "./support/dev-proxy.ts";
import { sendRawOnce } from "./support/raw-request.ts";
import { HangError } from "./support/reply-deadline.ts";
import { postEndpoint } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

/**
 * wrangler dev's proxy forwards each request to our worker over a pooled keep-alive connection,
 * which our worker's server closes after 5 s idle (docs/architecture.md#wrangler-devs-proxy).
 * Requests sent just under 5 s after the previous burst are written onto connections being
 * closed. Unpatched, such a GET waited in the proxy's retry queue for the next request to
 * arrive (one CI run's E7 poll hung until the test's timeout), and a GET with a body then threw
 * "Cannot reconstruct a Request with a used body" into that next request. A burst of 16 after
 * each gap opens 16 connections whose idle times differ by the few milliseconds the burst
 * took, and the gaps cover the window on a loaded machine too: before the patch nearly every
 * round lost some of them.
 *
 * Each request here goes on its own client socket (`sendRawOnce`), so the only pooled
 * connections are the proxy's, and no client resend hides a lost request.
 *
 * The patched proxy resends a lost request once, at once, and answers a 502 with
 * `Retry-After: 0` when the resend is lost too, which our clients resend. That last case
 * remains, in bursts: once 1 of this test's 80 in CI, and every resend scheme tried still lost
 * a few of 1,440 (docs/architecture.md). So the test holds the proxy to that contract, every
 * request answered and all but a tenth by the worker, rather than to never losing one.
 * Unpatched, lost GETs hang and lost GETs with a body answer 500: both fail here.
 */
const BURST = 16;
const GAPS_MS = [4950, 4960, 4970, 4980, 4990];
/** A lost request waits for the next one to arrive; nothing comes here, so it would hang. */
const ANSWER_WITHIN_MS = 8_000;
/** Requests of the test the proxy may answer with its 502 after losing every attempt. */
const PROXY_502_ALLOWED = 8;

interface Answer {
  status: number | string;
  headers: Headers;
  text: string;
}

async function send(path: string, token?: string, body?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  try {
    const reply = await sendRawOnce({ method: "GET", path, headers, body }, ANSWER_WITHIN_MS);
    return {
      status: reply.status,
      headers: reply.headers,
      text: reply.text.slice(0, 200),
    };
  } catch (error) {
    const status = error instanceof HangError ? "no answer" : (error as Error).message;
    return { status, headers: new Headers(), text: "" };
  }
}

let tenant: Tenant;
let logsPath: string;
beforeAll(async () => {
  tenant = await createTenant("keepalive");
  const created = await postEndpoint(tenant.key, { name: "k", model: "local/echo", prompt: "p" });
  logsPath = `/endpoints/${created.body.id}/logs`;
});

/** The proxy's own answer once a request and its resend are both lost: retryable at once. */
const isProxy502 = ({ status, headers, text }: Answer) =>
  typeof status === "number" &&
  isDevProxyLoss(status, headers, text) &&
  headers.get("retry-after") === "0";

/** Half plain GETs, half E7's GET with a JSON body: both kinds the proxy once lost. */
const burst = () =>
  Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      i % 2 === 0 ? send("/health") : send(logsPath, tenant.key, '{"page_size":1}'),
    ),
  );

describe("wrangler dev's proxy and its keep-alive connections to the worker", () => {
  it(
    "answers every request sent as the connections reach their idle timeout, nearly all from the worker",
    async () => {
      await burst();
      const wrong: string[] = [];
      const proxy502s: string[] = [];
      for (const gap of GAPS_MS) {
        await new Promise((resolve) => setTimeout(resolve, gap));
        for (const answer of await burst()) {
          const line = `after ${gap} ms: ${answer.status} ${answer.text}`;
          if (isProxy502(answer)) proxy502s.push(line);
          else if (answer.status !== 200 || !answer.headers.get("x-request-id")) wrong.push(line);
        }
      }
      expect(wrong).toEqual([]);
      expect(proxy502s.length, proxy502s.join("\n")).toBeLessThanOrEqual(PROXY_502_ALLOWED);
    },
    GAPS_MS.length * (5_000 + ANSWER_WITHIN_MS) + 10_000,
  );
});
