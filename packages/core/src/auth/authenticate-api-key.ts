import { apiKeys, type Database } from "@quarry/db";
import { and, eq, isNull } from "drizzle-orm";
import { constantTimeEqual, sha256Hex } from "../shared/crypto.ts";
import { UnauthorizedError } from "../shared/errors.ts";

export interface Caller {
  projectId: string;
  keyId: string;
  keyName: string | null;
  keyEmail: string | null;
}

const KEY_SHAPE = /^qry_[A-Za-z0-9_-]{43}$/;

/**
 * Resolves a bearer key to its project. The key is hashed and looked up by hash (so no
 * secret ever reaches a query plan or a log), then the stored hash is compared in constant time.
 */
export async function authenticateApiKey(db: Database, key: string | undefined): Promise<Caller> {
  if (!key || !KEY_SHAPE.test(key)) {
    throw new UnauthorizedError("Missing or malformed API key");
  }
  const hash = await sha256Hex(key);
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)));
  if (!row || !constantTimeEqual(row.keyHash, hash)) {
    throw new UnauthorizedError("Invalid or revoked API key");
  }
  return { projectId: row.projectId, keyId: row.id, keyName: row.name, keyEmail: row.email };
}

/** The admin token is configuration, not data: compare hashes so length leaks nothing either. */
export async function isAdminToken(expected: string, given: string | undefined): Promise<boolean> {
  if (!given || !expected) return false;
  const [a, b] = await Promise.all([sha256Hex(expected), sha256Hex(given)]);
  return constantTimeEqual(a, b);
}
