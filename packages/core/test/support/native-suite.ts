import type { Database } from "@quarry/db";
import { afterAll, beforeAll } from "vitest";
import { type FreshDatabase, freshDatabase, testEngine } from "./database.ts";
import { connectNative, type NativePool } from "./native-database.ts";

/** The calling concurrency test file's database, and sessions of its own on it. */
export interface NativeSuite {
  /** the file's fresh native database (read it in a hook or test) */
  readonly fresh: FreshDatabase;
  /** A pool of at most `max` sessions on that database, ended after the file's tests. */
  connect(max: number): { db: Database; pool: NativePool };
}

/**
 * Gives the calling file a fresh database on native PostgreSQL and closes it, with every pool
 * opened through `connect`, after its tests. The concurrency suite needs sessions that really
 * overlap, which PGlite's one statement at a time cannot give, so it refuses to run elsewhere.
 */
export function useNativeSuite(): NativeSuite {
  let fresh: FreshDatabase | undefined;
  const pools: NativePool[] = [];
  beforeAll(async () => {
    if (testEngine() !== "native") {
      throw new Error(
        "the concurrency suite runs on native PostgreSQL only (project domain-native)",
      );
    }
    fresh = await freshDatabase("native");
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await fresh?.close();
  });
  const opened = (): FreshDatabase => {
    if (!fresh) throw new Error("the database opens in beforeAll: read it in a hook or test");
    return fresh;
  };
  return {
    get fresh() {
      return opened();
    },
    connect(max) {
      const session = connectNative(opened().url!, max);
      pools.push(session.pool);
      return session;
    },
  };
}
