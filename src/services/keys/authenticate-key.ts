import type { DbOrTx } from "../../db/client.ts";
import { findApiKeyForAuth } from "../../db/queries/api-keys.ts";
import { DUMMY_DIGEST, parseApiKey, secretMatchesDigest } from "../../domain/keys.ts";
import type { AuthenticatedKey } from "../context.ts";
import { toAuthenticatedKey } from "./key-views.ts";

/**
 * Verifies a presented key: null for a malformed key or a bad checksum (no database read), an
 * unknown prefix, a wrong secret, a family that does not match the stored key, or a revoked key.
 * The causes are deliberately not told apart. One indexed read by prefix per call and no cache,
 * so a revocation or rotation applies to the next request on every instance.
 */
export async function authenticateKey(
  db: DbOrTx,
  rawKey: string,
): Promise<AuthenticatedKey | null> {
  const parsed = parseApiKey(rawKey);
  if (!parsed) return null;
  const found = await findApiKeyForAuth(db, parsed.prefix);
  const row = found?.key;
  // Compare even for an unknown prefix, so both paths do the same work.
  const matches = secretMatchesDigest(parsed.secret, row?.secretDigest ?? DUMMY_DIGEST);
  if (!row || !matches || row.family !== parsed.family || row.revokedAt) return null;
  const key = toAuthenticatedKey(row);
  return row.kind === "ORG" && found.ownOrg ? { ...key, ownOrg: found.ownOrg } : key;
}
