import { apiKeys, type Database } from "@quarry/db";
import { and, eq, isNull } from "drizzle-orm";
import { NotFoundError } from "../shared/errors.ts";

/** Revocation is immediate: authentication reads `revoked_at` on every request (no cache). */
export async function revokeApiKey(db: Database, keyId: string): Promise<void> {
  const revoked = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (revoked.length === 0) throw new NotFoundError("API key", keyId);
}
