import { readFile } from "node:fs/promises";
import type { Page, Request } from "playwright-core";

/**
 * What a failed browser test prints beside its assertion: where the page was and what it
 * showed, the requests that failed, answered >= 400 or never finished, and what the workers
 * logged meanwhile. A locator that times out says only what it waited for; a CI run cannot
 * be replayed, so the reason has to be in its output.
 */
export interface TrafficWatch {
  /** forgets what was seen so far (each test reports its own requests) */
  reset(): void;
  /** one line per request worth a look, oldest first */
  lines(): string[];
}

const KEPT = 40;

/** Follows `page`'s requests from now on. */
export function watchTraffic(page: Page): TrafficWatch {
  const started = new Map<Request, number>();
  let notable: string[] = [];
  const note = (line: string) => {
    notable.push(line);
    if (notable.length > KEPT) notable = notable.slice(-KEPT);
  };
  const label = (request: Request) => `${request.method()} ${new URL(request.url()).pathname}`;
  page.on("request", (request) => started.set(request, Date.now()));
  page.on("requestfailed", (request) => {
    started.delete(request);
    note(`${label(request)}: failed (${request.failure()?.errorText ?? "?"})`);
  });
  page.on("requestfinished", (request) => started.delete(request));
  page.on("response", (response) => {
    if (response.status() < 400) return;
    const id = response.headers()["x-request-id"];
    note(`${label(response.request())}: ${response.status()}${id ? ` (request ${id})` : ""}`);
  });
  return {
    reset() {
      notable = [];
      started.clear();
    },
    lines() {
      const now = Date.now();
      const pending = [...started].map(
        ([request, at]) => `${label(request)}: no answer after ${now - at} ms`,
      );
      return [...notable, ...pending];
    },
  };
}

/** The report printed for a failed test: the page, its traffic, the workers' new log lines. */
export async function diagnose(
  page: Page,
  traffic: TrafficWatch,
  workerLog: { file: string; from: number },
): Promise<string> {
  const shown = await page
    .locator("main")
    .textContent({ timeout: 2_000 })
    .catch((error: Error) => `(cannot read: ${error.message.split("\n")[0]})`);
  const requests = traffic.lines();
  const log = workerLog.file
    ? await readFile(workerLog.file, "utf8")
        .then((text) => text.slice(workerLog.from).trim().split("\n").slice(-KEPT).join("\n"))
        .catch(() => "(unreadable)")
    : "(not kept: attached to a running stack)";
  return [
    `page: ${page.url()}`,
    `shown: ${(shown ?? "").replace(/\s+/g, " ").slice(0, 600)}`,
    `requests failed, >= 400 or unanswered: ${requests.length === 0 ? "none" : `\n  ${requests.join("\n  ")}`}`,
    `workers' log meanwhile: ${log || "(nothing)"}`,
  ].join("\n");
}

/** How long a log file is now, in characters (0 when there is none yet). */
export async function logLength(file: string): Promise<number> {
  if (!file) return 0;
  return readFile(file, "utf8").then(
    (text) => text.length,
    () => 0,
  );
}
