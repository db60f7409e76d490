import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { ledgerCredentials } from "../../db/schema/index.ts";
import type { LedgerConnectionState } from "../../domain/metering/alerts.ts";

/**
 * The connection state with its retry time and reason when it is `service_issue` (the only
 * state whose ledgerAlert tells them): one extra primary-key read, only while the connection
 * needs attention, so a healthy organisation's requests pay nothing for it.
 */
export async function withRetryTime(
  db: DbOrTx,
  orgId: string,
  state: LedgerConnectionState | null,
): Promise<LedgerConnectionState | null> {
  if (state?.status !== "service_issue") return state;
  const [row] = await db
    .select({ at: ledgerCredentials.nextAttemptAt, reason: ledgerCredentials.retryReason })
    .from(ledgerCredentials)
    .where(eq(ledgerCredentials.orgId, orgId))
    .limit(1);
  return row ? { ...state, retryAt: row.at, retryReason: row.reason } : state;
}
