import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { apiKeys } from "../../db/schema/index.ts";
import { type ApiKeySummary, toApiKeySummary } from "./key-views.ts";
import { listApiKeys } from "./list-api-keys.ts";

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
