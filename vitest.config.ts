import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Two tiers. `domain`: the packages against in-process PGlite (real SQL, real migrations);
 * `domain-native`: the same files on native PostgreSQL (`QUARRY_TEST_DATABASE_URL`, required),
 * plus the concurrency suite, which only a real multi-session server can exercise.
 * `e2e`: HTTP against the real local stack (workerd via wrangler dev, embedded Postgres).
 */
/**
 * The domain tier runs two files at once, even on 2 cores. Each file's PGlite is
 * single-threaded WebAssembly in a fork of its own, so vitest's default there (cores - 1: one
 * file at a time) left a core idle through CI's longest run: 550 → 285 s on PGlite, 270 → 143 s
 * on native (2026-11-29). The e2e files share one stack (on PGlite, one statement at a time) and
 * keep the default.
 */
const DOMAIN_WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "domain",
          include: ["packages/*/test/**/*.test.ts"],
          // PGlite runs one statement at a time: it cannot show a concurrency bug.
          exclude: ["packages/local-stack/test/**", "packages/core/test/concurrency/**"],
          env: { QUARRY_TEST_ENGINE: "pglite" },
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          maxWorkers: DOMAIN_WORKERS,
        },
      },
      {
        test: {
          name: "domain-native",
          include: ["packages/*/test/**/*.test.ts"],
          exclude: ["packages/local-stack/test/**"],
          env: { QUARRY_TEST_ENGINE: "native" },
          // Fails the run when QUARRY_TEST_DATABASE_URL is unset (no fallback to PGlite).
          globalSetup: ["packages/core/test/support/native-global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          maxWorkers: DOMAIN_WORKERS,
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
