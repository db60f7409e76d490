import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { markApiKeyRevoked } from "../../db/queries/api-keys.ts";
import {
  insertOrgRevocation,
  type KeyReachingOrgRow,
  listKeysReachingOrg,
  listOrgRevocationsOfKeys,
  listPartnerKeyRows,
} from "../../db/queries/key-governance.ts";
import { organisations, type Role } from "../../db/schema/index.ts";
import {
  type KeyStopReason,
  keyStopReason,
  scopesWhere,
  sensitiveApplies,
} from "../../domain/key-governance.ts";
import type { Scope } from "../../domain/scopes.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";
import { type ApiKeySummary, toApiKeySummary } from "./key-views.ts";

/** A key that reaches an organisation, as that organisation's owner sees it. */
export interface GovernedKey extends ApiKeySummary {
  /** Whose key it is: the organisation's, a member's (personal), or a partner's. */
  holder: "organisation" | "member" | "partner";
  /** The creator's email (an organisation key's creator of record is the owner). */
  creatorEmail: string;
  /** Personal keys: the creator's role in the organisation. */
  creatorRole: Role | null;
  /** Partner keys: the partner's name. */
  partnerName: string | null;
  /**
   * In this organisation: `active`; `revoked` (everywhere); `revoked_here` (by this
   * organisation's owner, still working elsewhere); `stopped` (a partner key whose creator no
   * longer owns the partner).
   */
  statusHere: "active" | "revoked" | "revoked_here" | "stopped";
  revokedHereAt: string | null;
  stoppedBecause: KeyStopReason | null;
  /** The scopes the key has here: READ_SENSITIVE dropped where it does not apply. */
  scopesHere: Scope[];
}

/** Every key that reaches the organisation (see `listKeysReachingOrg`), and its setting. */
export interface OrgKeyReach {
  orgId: string;
  restrictSensitiveToOrgKeys: boolean;
  keys: GovernedKey[];
}

async function requireOrgSetting(db: DbOrTx, orgId: string): Promise<boolean> {
  const [org] = await db
    .select({ restrict: organisations.restrictSensitiveToOrgKeys })
    .from(organisations)
    .where(eq(organisations.id, orgId))
    .limit(1);
  if (!org) throw new NotFoundError(`organisation ${orgId}`);
  return org.restrict;
}

function governed(row: KeyReachingOrgRow, restrictSensitiveToOrgKeys: boolean): GovernedKey {
  const summary = toApiKeySummary(row.key);
  const stopped = keyStopReason({
    kind: row.key.kind,
    creatorOwnsPartner: row.creatorOwnsPartner,
  });
  const sensitive = sensitiveApplies({
    kind: row.key.kind,
    restrictSensitiveToOrgKeys,
    creatorRole: row.creatorRole,
  });
  return {
    ...summary,
    holder:
      row.key.kind === "ORG" ? "organisation" : row.key.kind === "USER" ? "member" : "partner",
    creatorEmail: row.creatorEmail,
    creatorRole: row.creatorRole,
    partnerName: row.partnerName,
    statusHere: row.key.revokedAt
      ? "revoked"
      : row.revokedHereAt
        ? "revoked_here"
        : stopped
          ? "stopped"
          : "active",
    revokedHereAt: row.revokedHereAt?.toISOString() ?? null,
    stoppedBecause: stopped,
    scopesHere: [...scopesWhere(summary.scopes, sensitive)],
  };
}

/**
 * Every key that reaches the organisation, for its owner: organisation keys, members' personal
 * keys and partner keys (live and pinned), active or not, oldest first, with creator, scopes
 * (and those that apply here), last use and reach. Never a secret or digest.
 */
export async function listOrgKeyReach(db: DbOrTx, orgId: string): Promise<OrgKeyReach> {
  const restrict = await requireOrgSetting(db, orgId);
  const rows = await listKeysReachingOrg(db, orgId);
  return {
    orgId,
    restrictSensitiveToOrgKeys: restrict,
    keys: rows.map((r) => governed(r, restrict)),
  };
}

/** An organisation a personal or partner key was revoked for by that organisation's owner. */
export interface RevokedFor {
  orgId: string;
  orgName: string;
  revokedAt: string;
}

/** A partner's key as its owners see it. */
export interface PartnerKey extends ApiKeySummary {
  creatorEmail: string;
  /** `creator_not_partner_owner` while its creator does not own the partner: it answers 401. */
  stoppedBecause: KeyStopReason | null;
  /** Client organisations whose owners revoked it for them. */
  revokedFor: RevokedFor[];
}

/** The keys with, for each, the organisations that revoked it for themselves. */
export async function withOrgRevocations<K extends ApiKeySummary>(
  db: DbOrTx,
  keys: readonly K[],
): Promise<(K & { revokedFor: RevokedFor[] })[]> {
  const rows = await listOrgRevocationsOfKeys(
    db,
    keys.filter((k) => k.kind !== "ORG").map((k) => k.id),
  );
  return keys.map((k) => ({
    ...k,
    revokedFor: rows
      .filter((r) => r.keyId === k.id)
      .map((r) => ({ orgId: r.orgId, orgName: r.orgName, revokedAt: r.revokedAt.toISOString() })),
  }));
}

/** A partner's keys, active and revoked, oldest first, for its owners. */
export async function listPartnerKeys(db: DbOrTx, partnerId: string): Promise<PartnerKey[]> {
  const rows = await listPartnerKeyRows(db, partnerId);
  return withOrgRevocations(
    db,
    rows.map((r) => ({
      ...toApiKeySummary(r.key),
      creatorEmail: r.creatorEmail,
      stoppedBecause: keyStopReason({
        kind: r.key.kind,
        creatorOwnsPartner: r.creatorOwnsPartner,
      }),
    })),
  );
}

/** What `revokeKeyForOrg` did. */
export interface OrgRevocation {
  prefix: string;
  kind: ApiKeySummary["kind"];
  label: string;
  /**
   * `key`: the key was revoked outright (an organisation key: its whole reach is this
   * organisation). `organisation`: a personal or partner key no longer reaches this organisation
   * and keeps working for its others.
   */
  revoked: "key" | "organisation";
  revokedAt: string;
}

/**
 * Revokes, for one organisation, a key that reaches it; decided by the organisation's owner (the
 * screen) or an operator (`keys revoke PREFIX --org ID`).
 *
 * - An organisation key is revoked outright, as `revokeApiKey` does.
 * - A personal or partner key loses this organisation from its reach, irreversibly (a later
 *   membership or link does not bring it back), and keeps working for the organisations it
 *   still reaches, which this organisation's owner has no say over. Its holder can revoke it
 *   everywhere.
 *
 * A key that does not reach the organisation answers not found, whether or not it exists.
 * Revoking twice is refused and changes nothing. Reach is read on every request, so the next
 * request of the key to this organisation answers 403 `forbidden`, on every instance.
 */
export async function revokeKeyForOrg(
  db: DbOrTx,
  input: { prefix: string; orgId: string; byUserId: string | null },
  now: Date,
): Promise<OrgRevocation> {
  return db.transaction(async (tx) => {
    const reach = await listOrgKeyReach(tx, input.orgId);
    const key = reach.keys.find((k) => k.prefix === input.prefix);
    if (!key) throw new NotFoundError(`key ${input.prefix} reaching organisation ${input.orgId}`);
    if (key.statusHere === "revoked" || key.statusHere === "revoked_here") {
      throw new InvalidParameterError(
        "prefix",
        `key ${input.prefix} is already revoked${key.statusHere === "revoked_here" ? " for this organisation" : ""}`,
      );
    }
    const base = {
      prefix: key.prefix,
      kind: key.kind,
      label: key.label,
      revokedAt: now.toISOString(),
    };
    if (key.kind === "ORG") {
      const revoked = await markApiKeyRevoked(tx, key.prefix, now);
      if (!revoked)
        throw new InvalidParameterError("prefix", `key ${key.prefix} is already revoked`);
      return { ...base, revoked: "key" };
    }
    const inserted = await insertOrgRevocation(tx, {
      keyId: key.id,
      orgId: input.orgId,
      revokedAt: now,
      revokedByUserId: input.byUserId,
    });
    if (!inserted) {
      throw new InvalidParameterError(
        "prefix",
        `key ${input.prefix} is already revoked for this organisation`,
      );
    }
    return { ...base, revoked: "organisation" };
  });
}

/**
 * The owner's setting: READ_SENSITIVE only through organisation keys. While on, members'
 * personal keys and partner keys read the organisation without READ_SENSITIVE (sensitive rows
 * withheld, names redacted, audit rows not tagged sensitive), from their next request, on every
 * instance; they are not changed, so turning the setting off gives it back to the keys that
 * carry it (personal keys: only where their creator is an owner or admin).
 */
export async function setSensitiveKeyRestriction(
  db: DbOrTx,
  input: { orgId: string; restrictSensitiveToOrgKeys: boolean },
): Promise<{ orgId: string; restrictSensitiveToOrgKeys: boolean }> {
  const rows = await db
    .update(organisations)
    .set({ restrictSensitiveToOrgKeys: input.restrictSensitiveToOrgKeys })
    .where(eq(organisations.id, input.orgId))
    .returning({ id: organisations.id });
  if (rows.length === 0) throw new NotFoundError(`organisation ${input.orgId}`);
  return input;
}
