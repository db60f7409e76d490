import type { DbOrTx } from "../../db/client.ts";
import { findApiKeyByPrefix, markApiKeyRevoked } from "../../db/queries/api-keys.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";
import { type ApiKeySummary, toApiKeySummary } from "./key-views.ts";

/**
 * Revokes a key of either family, irreversibly: every agent endpoint answers 401 to it from the
 * next request on. The row stays (listed as revoked; audit rows keep referring to it). Revoking
 * a revoked key is refused with an error and changes nothing.
 */
export async function revokeApiKey(db: DbOrTx, prefix: string, now: Date): Promise<ApiKeySummary> {
  const revoked = await markApiKeyRevoked(db, prefix, now);
  if (revoked) return toApiKeySummary(revoked);
  const existing = await findApiKeyByPrefix(db, prefix);
  if (!existing) throw new NotFoundError(`key ${prefix}`);
  throw new InvalidParameterError("prefix", `key ${prefix} is already revoked`);
}
