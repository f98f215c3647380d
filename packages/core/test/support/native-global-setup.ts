import { nativeTemplate } from "./native-database.ts";

/**
 * `domain-native`'s global setup: without `QUARRY_TEST_DATABASE_URL`, or on a server without
 * pgvector >= 0.8, the run stops here with a message that says what to set — it never falls
 * back to PGlite. With it, the migrated template is built once, before the workers start.
 */
export default async function setup(): Promise<void> {
  await nativeTemplate();
}
