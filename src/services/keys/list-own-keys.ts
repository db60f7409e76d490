import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { type ApiKeyRow, findApiKeyByPrefix } from "../../db/queries/api-keys.ts";
import { apiKeys } from "../../db/schema/index.ts";
import { type ApiKeySummary, toApiKeySummary } from "./key-views.ts";
import { listApiKeys } from "./list-api-keys.ts";

/** The key row of `prefix` (any organisation's; the caller checks who may see it), or undefined. */
export function keyByPrefix(db: DbOrTx, prefix: string): Promise<ApiKeyRow | undefined> {
  return findApiKeyByPrefix(db, prefix);
}

/** The organisation's own `cr_live_` keys, active and revoked, oldest first. */
export function listOrgKeys(db: DbOrTx, orgId: string): Promise<ApiKeySummary[]> {
  return listApiKeys(db, { orgId });
}

/** A user's personal USER (`crun_`) keys, oldest first. */
export async function listOwnUserKeys(db: DbOrTx, userId: string): Promise<ApiKeySummary[]> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.kind, "USER"), eq(apiKeys.createdByUserId, userId)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  return rows.map(toApiKeySummary);
}
