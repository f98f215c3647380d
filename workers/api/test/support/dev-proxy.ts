/**
 * `wrangler dev` answers through a proxy worker of its own. When that proxy loses its
 * connection to our worker mid-request (its state is reset, e.g. after a client dropped a
 * hostile request), it answers a request it cannot replay itself — anything but GET/HEAD — with
 * this plain-text 503 and `Retry-After: 0`: "send it again". It never exists in production,
 * and our worker never sends it (every reply of ours has an X-Request-Id). The e2e clients
 * resend such a request, so the suites judge our worker's answer, not the dev proxy's.
 */
function isDevProxyRestart(status: number, headers: Headers, text: string): boolean {
  return (
    status === 503 &&
    !headers.has("x-request-id") &&
    text.startsWith("Your worker restarted mid-request")
  );
}

/** How often a request is resent after the dev proxy's 503. */
const DEV_PROXY_RESENDS = 3;

export async function resendAfterDevProxyRestart<
  T extends { status: number; headers: Headers; text: string },
>(label: string, send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const reply = await send();
    if (
      attempt >= DEV_PROXY_RESENDS ||
      !isDevProxyRestart(reply.status, reply.headers, reply.text)
    ) {
      return reply;
    }
    console.warn(`${label}: wrangler dev's proxy lost the worker mid-request (503); resending`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
