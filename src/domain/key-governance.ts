/*
 * Who may hold READ_SENSITIVE where, and when a key stops (docs/api.md, "Key governance"). Pure
 * rules: the queries read the facts (roles, the organisation's setting, partner owners), these
 * functions decide.
 */
import type { Scope } from "./scopes.ts";

/** The roles of an organisation (the same names as the database's `ROLES`). */
export type OrgRole = "owner" | "admin" | "member";

/** Roles whose holders may mint, and use, a personal key with READ_SENSITIVE. */
export const SENSITIVE_ROLES: readonly OrgRole[] = ["owner", "admin"];

/** Whether a member with this role may hold READ_SENSITIVE through a personal key. */
export function roleMayHoldSensitive(role: OrgRole | null | undefined): boolean {
  return role !== null && role !== undefined && SENSITIVE_ROLES.includes(role);
}

/**
 * Why a key whose secret matched is refused anyway. `creator_not_partner_owner`: a partner key
 * whose creator no longer owns the partner. The key answers 401 like a revoked one; the reason
 * is kept in its audit rows and shown to the partner's owners.
 */
export type KeyStopReason = "creator_not_partner_owner";

/** The stop reason of a key, from what authentication reads with it. */
export function keyStopReason(key: {
  kind: "ORG" | "USER" | "PARTNER";
  creatorOwnsPartner: boolean;
}): KeyStopReason | null {
  return key.kind === "PARTNER" && !key.creatorOwnsPartner ? "creator_not_partner_owner" : null;
}

/**
 * Whether READ_SENSITIVE, if the key carries it, applies in one organisation:
 *
 * - organisation (`cr_live_`) keys: always (only owners and admins create them, and they belong
 *   to the organisation, not to a person);
 * - personal (USER) keys: while the creator is an owner or admin there and the organisation does
 *   not restrict READ_SENSITIVE to organisation keys. A member who is demoted loses it at once,
 *   in that organisation only;
 * - partner keys: while the organisation does not restrict it.
 */
export function sensitiveApplies(input: {
  kind: "ORG" | "USER" | "PARTNER";
  restrictSensitiveToOrgKeys: boolean;
  creatorRole: OrgRole | null;
}): boolean {
  if (input.kind === "ORG") return true;
  if (input.restrictSensitiveToOrgKeys) return false;
  return input.kind === "PARTNER" || roleMayHoldSensitive(input.creatorRole);
}

/** The key's scopes in one organisation: READ_SENSITIVE dropped where it does not apply. */
export function scopesWhere(scopes: readonly Scope[], sensitive: boolean): readonly Scope[] {
  return sensitive || !scopes.includes("READ_SENSITIVE")
    ? scopes
    : scopes.filter((s) => s !== "READ_SENSITIVE");
}
