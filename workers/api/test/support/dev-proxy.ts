/**
 * `wrangler dev` answers through a proxy worker of its own, which forwards each request to our
 * worker over a pooled keep-alive connection. Our worker's server closes a connection after
 * 5 s idle, and a request written onto it at that moment is lost before our worker sees it
 * (docs/architecture.md#wrangler-devs-proxy). The patched proxy sends such a request once more
 * when it kept a copy of the body (up to 1 MiB); otherwise, or when that is lost too, it answers
 * with a plain-text 502 "wrangler dev could not forward …", and after a real restart of the
 * workers with a 503 "Your worker restarted mid-request", both without our X-Request-Id. Neither
 * exists in production, and our worker never sends them, so the e2e clients resend such a
 * request and the suites judge our worker's answer, not the dev proxy's.
 */
function isDevProxyFailure(status: number, headers: Headers, text: string): boolean {
  return (
    isDevProxyLoss(status, headers, text) ||
    (status === 503 &&
      !headers.has("x-request-id") &&
      text.startsWith("Your worker restarted mid-request"))
  );
}

/** The patched proxy's 502 for a request it lost on the way to our worker, resend included. */
export function isDevProxyLoss(status: number, headers: Headers, text: string): boolean {
  return (
    status === 502 &&
    !headers.has("x-request-id") &&
    text.startsWith("wrangler dev could not forward the request to the Worker: ")
  );
}

/** How often a request is resent after the dev proxy's 502 or 503. */
const DEV_PROXY_RESENDS = 3;

export async function resendAfterDevProxyRestart<
  T extends { status: number; headers: Headers; text: string },
>(label: string, send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const reply = await send();
    if (
      attempt >= DEV_PROXY_RESENDS ||
      !isDevProxyFailure(reply.status, reply.headers, reply.text)
    ) {
      return reply;
    }
    console.warn(
      `${label}: wrangler dev's proxy could not reach the worker (${reply.status}); resending`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
