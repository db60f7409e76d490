import type { DbOrTx } from "../../db/client.ts";
import { listApiKeyRows } from "../../db/queries/api-keys.ts";
import { type ApiKeySummary, toApiKeySummary } from "./key-views.ts";

/**
 * Every key (active and revoked), oldest first; with `orgId`, that organisation's `cr_live_`
 * keys. Never returns a secret or a digest.
 */
export async function listApiKeys(
  db: DbOrTx,
  filter: { orgId?: string } = {},
): Promise<ApiKeySummary[]> {
  const rows = await listApiKeyRows(db, filter);
  return rows.map(toApiKeySummary);
}
