import type { DbOrTx } from "../../db/client.ts";
import { listReachableOrgRows, type ReachedOrgRow } from "../../db/queries/reach.ts";
import { scopesWhere, sensitiveApplies } from "../../domain/key-governance.ts";
import type { Scope } from "../../domain/scopes.ts";
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

/** The organisation a request reads, and the key's scopes there. */
export interface KeyTarget {
  org: OrgRef;
  /**
   * The key's scopes in that organisation: its own, less READ_SENSITIVE where it does not apply
   * (`sensitiveApplies`: a personal key whose creator is not an owner or admin there, or an
   * organisation that restricts READ_SENSITIVE to organisation keys). Scope checks, sensitive
   * gating and the audit row's `sensitive` use these.
   */
  scopes: readonly Scope[];
}

/**
 * The organisation a request reads, with the key's scopes there.
 *
 * - Nested form (`pathOrgId` given, `/api/agent/orgs/{orgId}/…`): that organisation if the key
 *   reaches it, else 403 `forbidden` (unknown, malformed and out-of-reach ids alike).
 * - Flat form: an organisation key reads its own organisation; a USER or PARTNER key whose reach
 *   is exactly one organisation reads that one; reaching several answers 400 `org_required`, and
 *   reaching none answers 403 `forbidden`.
 *
 * An organisation key's target is `ownTargetOrg` (no read), with its own scopes.
 */
export async function resolveKeyTarget(
  db: DbOrTx,
  key: AuthenticatedKey,
  pathOrgId: string | undefined,
): Promise<KeyTarget> {
  const own = ownTargetOrg(key, pathOrgId);
  if (own) return { org: own, scopes: key.scopes };
  if (pathOrgId !== undefined) {
    if (!PLAUSIBLE_ORG_ID.test(pathOrgId)) throw new OrgForbiddenError();
    const [row] = await listReachableOrgRows(db, key, { onlyOrgId: pathOrgId, limit: 1 });
    if (!row) throw new OrgForbiddenError();
    return targetOf(key, row);
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
  return targetOf(key, only);
}

/** `resolveKeyTarget`'s organisation alone. */
export async function resolveTargetOrg(
  db: DbOrTx,
  key: AuthenticatedKey,
  pathOrgId: string | undefined,
): Promise<OrgRef> {
  return (await resolveKeyTarget(db, key, pathOrgId)).org;
}

function targetOf(key: AuthenticatedKey, row: ReachedOrgRow): KeyTarget {
  const { restrictSensitiveToOrgKeys, creatorRole, ...org } = row;
  const sensitive = sensitiveApplies({ kind: key.kind, restrictSensitiveToOrgKeys, creatorRole });
  return { org, scopes: scopesWhere(key.scopes, sensitive) };
}
