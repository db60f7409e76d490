import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { ledgerConnections, organisations } from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { NotFoundError } from "../errors.ts";

export const LEDGER_STATES = ["none", "healthy", "retrying", "reconnect_required"] as const;
export type LedgerState = (typeof LEDGER_STATES)[number];

const STATUS = {
  none: "disconnected",
  healthy: "active",
  retrying: "service_issue",
  reconnect_required: "reconnect_required",
} as const;

const ERROR: Record<LedgerState, string | null> = {
  none: null,
  healthy: null,
  retrying: "The ledger returned errors; retrying (set by operator).",
  reconnect_required: "The ledger token expired (set by operator).",
};

/**
 * Operator command for demos and tests (`cashrunway ledger set-state`): puts the organisation's
 * ledger connection in a state the `ledgerAlert` reflects on the next request. `none` marks the
 * connection disconnected (kept, as sync runs refer to it); the other states create a `demo`
 * connection when the organisation has none. Sync runs are left alone, so `lastSuccessfulSync`
 * stays the truth.
 */
export async function setLedgerState(
  db: DbOrTx,
  input: { orgId: string; state: LedgerState },
): Promise<{ orgId: string; state: LedgerState; provider: string | null; status: string | null }> {
  const [org] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.id, input.orgId));
  if (!org) throw new NotFoundError(`organisation ${input.orgId}`);
  const status = STATUS[input.state];
  const lastError = ERROR[input.state];
  if (input.state === "none") {
    const rows = await db
      .update(ledgerConnections)
      .set({ status, lastError })
      .where(eq(ledgerConnections.orgId, input.orgId))
      .returning({ provider: ledgerConnections.provider });
    return {
      orgId: input.orgId,
      state: input.state,
      provider: rows[0]?.provider ?? null,
      status: rows[0] ? status : null,
    };
  }
  const [row] = await db
    .insert(ledgerConnections)
    .values({ id: newId("con"), orgId: input.orgId, provider: "demo", status, lastError })
    .onConflictDoUpdate({ target: ledgerConnections.orgId, set: { status, lastError } })
    .returning({ provider: ledgerConnections.provider });
  return { orgId: input.orgId, state: input.state, provider: row?.provider ?? null, status };
}
