import { sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";

/** One audit row: an authenticated agent request. */
export interface AgentRequestAudit {
  keyId: string;
  /** The target organisation when the pipeline resolved one. */
  orgId: string | null;
  method: string;
  /** The flat route template, e.g. `/api/agent/contacts/{id}`; never the raw URL. */
  route: string;
  status: number;
  /** True when the key holds READ_SENSITIVE (in the target organisation, when resolved). */
  sensitive: boolean;
  /** Why a key whose secret matched was refused (`audit_events.reason`); absent otherwise. */
  reason?: string | null;
  requestId: string;
  at: Date;
}

/**
 * Appends the audit row and stamps the key's `last_used_at` (and `last_sensitive_access_at` for a
 * sensitive key) in ONE statement, so the audit costs a single round trip and the two writes
 * commit together. `greatest()` keeps the stamps monotonic when requests finish out of order
 * (it ignores NULL, so the first use sets the stamp).
 */
export async function recordAgentRequest(db: DbOrTx, row: AgentRequestAudit): Promise<void> {
  const at = row.at.toISOString();
  await db.execute(sql`
    with audit as (
      insert into audit_events (key_id, org_id, method, route, status, sensitive, reason,
                                request_id, at)
      values (${row.keyId}, ${row.orgId}, ${row.method}, ${row.route}, ${row.status},
              ${row.sensitive}, ${row.reason ?? null}, ${row.requestId}, ${at}::timestamptz)
      returning key_id
    )
    update api_keys
       set last_used_at = greatest(last_used_at, ${at}::timestamptz),
           last_sensitive_access_at = case when ${row.sensitive}
             then greatest(last_sensitive_access_at, ${at}::timestamptz)
             else last_sensitive_access_at end
     where id = (select key_id from audit)
  `);
}
