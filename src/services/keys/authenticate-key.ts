import type { DbOrTx } from "../../db/client.ts";
import { findApiKeyForAuth } from "../../db/queries/api-keys.ts";
import {
  checksumHolds,
  DUMMY_DIGEST,
  type ParsedApiKey,
  parseApiKeyShape,
  secretMatchesDigest,
} from "../../domain/keys.ts";
import type { AuthenticatedKey } from "../context.ts";
import { toVerifiedKey } from "./key-views.ts";
import type { VerifiedKeyCache } from "./verified-key-cache.ts";

/**
 * Verifies a presented key: null for a malformed key or a bad checksum (no database read), an
 * unknown prefix, a wrong secret, a family that does not match the stored key, or a revoked key.
 * The causes are deliberately not told apart.
 *
 * Without a cache: one indexed read by prefix per call, so a revocation or rotation applies to the
 * next request on every instance. With a `VerifiedKeyCache` (the server's default): an active key
 * seen before is verified from memory against its stored digest, and a revocation applies within
 * the cache's poll interval on every instance (see VerifiedKeyCache).
 */
export async function authenticateKey(
  db: DbOrTx,
  rawKey: string,
  cache?: VerifiedKeyCache,
): Promise<AuthenticatedKey | null> {
  const parsed = parseApiKeyShape(rawKey);
  if (!parsed) return null;
  const fromCache = verifyFromCache(parsed, cache);
  // null is an answer (a wrong secret for a cached key); only undefined reads the database.
  return fromCache !== undefined ? fromCache : await verifyFromDatabase(db, parsed, cache);
}

function verifyFromCache(
  parsed: ParsedApiKey,
  cache: VerifiedKeyCache | undefined,
): AuthenticatedKey | null | undefined {
  const cached = cache?.get(parsed.prefix);
  if (!cached) return undefined;
  // The whole secret against the stored digest: a match implies the checksum (see
  // parseApiKeyShape), so the checksum's own hash is skipped on this, the hot, path.
  const matches = secretMatchesDigest(parsed.secret, cached.secretDigest);
  return matches && cached.family === parsed.family ? cached.key : null;
}

/** A key not (or no longer) in memory: one indexed read by prefix. */
async function verifyFromDatabase(
  db: DbOrTx,
  parsed: ParsedApiKey,
  cache: VerifiedKeyCache | undefined,
): Promise<AuthenticatedKey | null> {
  // A mistyped key is refused here, without a database read.
  if (!checksumHolds(parsed)) return null;
  const token = cache?.readToken();
  const found = await findApiKeyForAuth(db, parsed.prefix);
  const row = found?.key;
  // Compare even for an unknown prefix, so both paths do the same work.
  const matches = secretMatchesDigest(parsed.secret, row?.secretDigest ?? DUMMY_DIGEST);
  if (!row || !matches || row.family !== parsed.family || row.revokedAt) return null;
  const key = toVerifiedKey(found);
  if (cache && token !== undefined) {
    const secretDigest = Buffer.from(row.secretDigest, "hex");
    cache.set(parsed.prefix, { key, family: row.family, secretDigest }, token);
  }
  return key;
}
