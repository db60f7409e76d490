import type { ApiKeyForAuth, ApiKeyRow } from "../../db/queries/api-keys.ts";
import type { KeyKind, KeyReach } from "../../db/schema/index.ts";
import { keyStopReason } from "../../domain/key-governance.ts";
import { isScope, type Scope } from "../../domain/scopes.ts";
import type { AuthenticatedKey } from "../context.ts";

/** A key as listings show it: never the secret, never its digest. */
export interface ApiKeySummary {
  id: string;
  prefix: string;
  family: "cr_live" | "crun";
  kind: KeyKind;
  label: string;
  scopes: Scope[];
  reach: KeyReach;
  orgId: string | null;
  partnerId: string | null;
  pinnedOrgIds: string[] | null;
  createdByUserId: string;
  status: "active" | "revoked";
  createdAt: string;
  lastUsedAt: string | null;
  lastSensitiveAccessAt: string | null;
  revokedAt: string | null;
  replacedByKeyId: string | null;
}

/** Stored scope strings that are not (or no longer) scopes grant nothing: fail closed. */
export function storedScopes(row: Pick<ApiKeyRow, "scopes">): Scope[] {
  return row.scopes.filter(isScope);
}

export function toApiKeySummary(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    prefix: row.prefix,
    family: row.family,
    kind: row.kind,
    label: row.label,
    scopes: storedScopes(row),
    reach: row.reach,
    orgId: row.orgId,
    partnerId: row.partnerId,
    pinnedOrgIds: row.pinnedOrgIds,
    createdByUserId: row.createdByUserId,
    status: row.revokedAt ? "revoked" : "active",
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    lastSensitiveAccessAt: row.lastSensitiveAccessAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    replacedByKeyId: row.replacedByKeyId,
  };
}

/**
 * A verified key as authentication hands it on: an organisation key with its organisation, and
 * a partner key whose creator no longer owns the partner marked stopped (`keyStopReason`).
 */
export function toVerifiedKey(found: ApiKeyForAuth): AuthenticatedKey {
  const key = toAuthenticatedKey(found.key);
  if (found.key.kind === "ORG" && found.ownOrg) key.ownOrg = found.ownOrg;
  const stopped = keyStopReason({
    kind: found.key.kind,
    creatorOwnsPartner: found.creatorOwnsPartner,
  });
  if (stopped) key.stoppedBecause = stopped;
  return key;
}

export function toAuthenticatedKey(row: ApiKeyRow): AuthenticatedKey {
  return {
    id: row.id,
    prefix: row.prefix,
    family: row.family,
    kind: row.kind,
    reach: row.reach,
    scopes: storedScopes(row),
    label: row.label,
    createdByUserId: row.createdByUserId,
    orgId: row.orgId,
    partnerId: row.partnerId,
    pinnedOrgIds: row.pinnedOrgIds,
  };
}
