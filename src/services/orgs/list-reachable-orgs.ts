import type { z } from "@hono/zod-openapi";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type { OrgsResponseSchema } from "../../contracts/agent/orgs.ts";
import type { DbOrTx } from "../../db/client.ts";
import { listReachableOrgRows } from "../../db/queries/reach.ts";
import type { AuthenticatedKey } from "../context.ts";

/** What `GET /api/agent/orgs` answers (alerts are the pipeline's). */
export type ReachableOrgs = Omit<z.infer<typeof OrgsResponseSchema>, keyof typeof alertFields>;

/**
 * The organisations the key reaches right now, sorted by name then id (see
 * `listReachableOrgRows` for the rules). May be empty, e.g. for a partner with no links.
 */
export async function listReachableOrgs(db: DbOrTx, key: AuthenticatedKey): Promise<ReachableOrgs> {
  const rows = await listReachableOrgRows(db, key);
  return {
    keyKind: key.kind === "PARTNER" ? "PARTNER" : "USER",
    orgs: rows.map((r) => ({
      id: r.id,
      name: r.name,
      baseCurrency: r.baseCurrency,
      timezone: r.timezone,
    })),
  };
}
