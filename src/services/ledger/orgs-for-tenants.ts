import { inArray } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { ledgerCredentials } from "../../db/schema/index.ts";

/** Most tenant ids looked up at once (a webhook delivery names a handful). */
const MAX_TENANTS = 1000;

/**
 * The organisations connected to any of these ledger tenants (a webhook delivery's `tenantId`s),
 * the first MAX_TENANTS of them considered.
 */
export async function orgsForTenants(db: DbOrTx, tenantIds: readonly string[]): Promise<string[]> {
  if (tenantIds.length === 0) return [];
  const rows = await db
    .select({ orgId: ledgerCredentials.orgId })
    .from(ledgerCredentials)
    .where(inArray(ledgerCredentials.tenantId, tenantIds.slice(0, MAX_TENANTS)));
  return rows.map((r) => r.orgId);
}
