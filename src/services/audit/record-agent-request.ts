import type { DbOrTx } from "../../db/client.ts";
import {
  type AgentRequestAudit,
  recordAgentRequest as insertAudit,
} from "../../db/queries/audit.ts";

export type { AgentRequestAudit };

/**
 * Records one authenticated agent request: appends an `audit_events` row (append-only table) and
 * stamps the key's "last used" and, for keys holding READ_SENSITIVE, "last sensitive access".
 * One statement, one round trip. Rows are never deleted and outlive rotation and revocation.
 */
export async function recordAgentRequest(db: DbOrTx, event: AgentRequestAudit): Promise<void> {
  await insertAudit(db, event);
}
