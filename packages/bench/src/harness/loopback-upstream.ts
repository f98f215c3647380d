import {
  type FakeOpenAI,
  startFakeOpenAI,
} from "../../../../workers/api/test/support/fake-openai-server.ts";
import type { Bench } from "./bench.ts";

/**
 * The loopback OpenAI-compatible upstream of the benches that call models (the e2e tests'
 * fake server, `openai/reply`), started before the stack so the stack can be pointed at it.
 * Against a running stack (`BASE`), it listens on BENCH_UPSTREAM_PORT (default 8790): start
 * that stack with OPENAI_BASE_URL=http://127.0.0.1:<port>/v1 and any OPENAI_API_KEY.
 */
export function loopbackUpstream(): {
  prepare: NonNullable<Bench["prepare"]>;
  /** the started server; throws when `prepare` has not run */
  started(): FakeOpenAI;
} {
  let upstream: FakeOpenAI | undefined;
  return {
    async prepare(progress) {
      const port = process.env.BASE ? Number(process.env.BENCH_UPSTREAM_PORT ?? 8790) : 0;
      const server = await startFakeOpenAI({ port });
      upstream = server;
      progress(`loopback upstream at ${server.url}`);
      return {
        stack: { openaiBaseUrl: server.url, openaiApiKey: "sk-bench" },
        close: () => server.close(),
      };
    },
    started() {
      if (!upstream) throw new Error("prepare() did not run");
      return upstream;
    },
  };
}
