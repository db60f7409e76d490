import type { DbOrTx } from "../../db/client.ts";
import { listReachableOrgRows } from "../../db/queries/reach.ts";
import type { AuthenticatedKey } from "../context.ts";

/** One organisation a key can read. */
export interface ReachableOrg {
  id: string;
  name: string;
  baseCurrency: string;
  timezone: string;
}

/** What `GET /api/agent/orgs` answers. */
export interface ReachableOrgs {
  /** PARTNER for partner keys; USER for USER keys and for organisation (`cr_live_`) keys. */
  keyKind: "PARTNER" | "USER";
  orgs: ReachableOrg[];
}

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
