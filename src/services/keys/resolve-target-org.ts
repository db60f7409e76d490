import type { DbOrTx } from "../../db/client.ts";
import { listReachableOrgRows } from "../../db/queries/reach.ts";
import type { AuthenticatedKey, OrgRef } from "../context.ts";
import { ServiceError } from "../errors.ts";

/** Ids are short printable tokens; anything else cannot be an organisation, so skip the read. */
const PLAUSIBLE_ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Outside the key's reach. The message is the same whether the organisation exists or not, and
 * whether the id is malformed, so the answer never reveals which organisations exist.
 */
export class OrgForbiddenError extends ServiceError {
  constructor() {
    super("forbidden", "This key cannot read that organisation.");
  }
}

/**
 * `resolveTargetOrg` without the database, for an organisation key: it reaches exactly its own
 * organisation, read with the key (any other `pathOrgId` is refused). Undefined for USER and
 * PARTNER keys, whose reach is read. Synchronous, so the pipeline pays no promise for it.
 */
export function ownTargetOrg(
  key: AuthenticatedKey,
  pathOrgId: string | undefined,
): OrgRef | undefined {
  if (key.kind !== "ORG" || !key.ownOrg) return undefined;
  if (pathOrgId !== undefined && pathOrgId !== key.ownOrg.id) throw new OrgForbiddenError();
  return key.ownOrg;
}

/**
 * The organisation a request reads.
 *
 * - Nested form (`pathOrgId` given, `/api/agent/orgs/{orgId}/…`): that organisation if the key
 *   reaches it, else 403 `forbidden` (unknown, malformed and out-of-reach ids alike).
 * - Flat form: an organisation key reads its own organisation; a USER or PARTNER key whose reach
 *   is exactly one organisation reads that one; reaching several answers 400 `org_required`, and
 *   reaching none answers 403 `forbidden`.
 */
export async function resolveTargetOrg(
  db: DbOrTx,
  key: AuthenticatedKey,
  pathOrgId: string | undefined,
): Promise<OrgRef> {
  const own = ownTargetOrg(key, pathOrgId);
  if (own) return own;
  if (pathOrgId !== undefined) {
    if (!PLAUSIBLE_ORG_ID.test(pathOrgId)) throw new OrgForbiddenError();
    const [org] = await listReachableOrgRows(db, key, { onlyOrgId: pathOrgId, limit: 1 });
    if (!org) throw new OrgForbiddenError();
    return org;
  }
  const rows = await listReachableOrgRows(db, key, { limit: 2 });
  const [only, second] = rows;
  if (!only) {
    throw new ServiceError("forbidden", "This key does not reach any organisation.");
  }
  if (second) {
    throw new ServiceError(
      "org_required",
      "This key reaches several organisations: call /api/agent/orgs to list them, then use " +
        "/api/agent/orgs/{orgId}/… routes.",
    );
  }
  return only;
}
