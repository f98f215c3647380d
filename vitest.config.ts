import { defineConfig } from "vitest/config";

/**
 * Two tiers. `domain`: the packages against in-process PGlite (real SQL, real migrations).
 * `e2e`: HTTP against the real local stack (workerd via wrangler dev, embedded Postgres).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "domain",
          include: ["packages/*/test/**/*.test.ts"],
          exclude: ["packages/local-stack/test/**"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
        },
      },
      {
        // The loopback Postgres server is timing-sensitive (idle timeouts, socket teardown):
        // its files run one at a time so a busy 2-core runner cannot starve them.
        test: {
          name: "stack",
          include: ["packages/local-stack/test/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["workers/*/test/**/*.test.ts"],
          globalSetup: ["workers/api/test/support/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
