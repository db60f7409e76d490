import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import {
  apiKeyOrgRevocations,
  apiKeys,
  memberships,
  organisations,
  partnerLinks,
  partnerOwners,
  partners,
  type Role,
  users,
} from "../schema/index.ts";
import { type ApiKeyRow, CREATOR_OWNS_PARTNER } from "./api-keys.ts";

/** A key that reaches an organisation, with what its owner is shown about it. */
export interface KeyReachingOrgRow {
  key: ApiKeyRow;
  creatorEmail: string;
  /** USER keys: the creator's role in the organisation (their membership); else null. */
  creatorRole: Role | null;
  /** PARTNER keys: the partner's name; else null. */
  partnerName: string | null;
  /** PARTNER keys: whether the creator still owns the partner; else false. */
  creatorOwnsPartner: boolean;
  /** When the organisation's owner revoked it for the organisation; null if not. */
  revokedHereAt: Date | null;
}

/**
 * Every key that reaches the organisation or would but for a revocation (active, revoked, revoked
 * for this organisation, or stopped), oldest first:
 *
 * - its organisation (`cr_live_`) keys;
 * - the personal (USER) keys of its current members;
 * - the partner keys of its linked partners whose reach includes it (ALL_LINKED, or PINNED to it).
 *
 * Three indexed reads (by organisation, by creator among the members, by partner among the
 * links) rather than one scan of every key of the deployment.
 */
export async function listKeysReachingOrg(db: DbOrTx, orgId: string): Promise<KeyReachingOrgRow[]> {
  const select = () =>
    db
      .select({
        key: apiKeys,
        creatorEmail: users.email,
        creatorRole: memberships.role,
        partnerName: partners.name,
        creatorOwnsPartner: sql<boolean>`${partnerOwners.userId} is not null`,
        revokedHereAt: apiKeyOrgRevocations.revokedAt,
      })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.createdByUserId))
      .leftJoin(
        memberships,
        and(
          eq(apiKeys.kind, "USER"),
          eq(memberships.orgId, orgId),
          eq(memberships.userId, apiKeys.createdByUserId),
        ),
      )
      .leftJoin(partners, eq(partners.id, apiKeys.partnerId))
      .leftJoin(partnerOwners, CREATOR_OWNS_PARTNER)
      .leftJoin(
        apiKeyOrgRevocations,
        and(eq(apiKeyOrgRevocations.keyId, apiKeys.id), eq(apiKeyOrgRevocations.orgId, orgId)),
      );
  const members = db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(eq(memberships.orgId, orgId));
  const linked = db
    .select({ partnerId: partnerLinks.partnerId })
    .from(partnerLinks)
    .where(eq(partnerLinks.orgId, orgId));
  const [own, personal, partner] = await Promise.all([
    select().where(and(eq(apiKeys.kind, "ORG"), eq(apiKeys.orgId, orgId))),
    select().where(and(eq(apiKeys.kind, "USER"), inArray(apiKeys.createdByUserId, members))),
    select().where(
      and(
        eq(apiKeys.kind, "PARTNER"),
        inArray(apiKeys.partnerId, linked),
        or(
          eq(apiKeys.reach, "ALL_LINKED"),
          and(eq(apiKeys.reach, "PINNED"), sql`${orgId} = any(${apiKeys.pinnedOrgIds})`),
        ),
      ),
    ),
  ]);
  return [...own, ...personal, ...partner].sort(
    (a, b) =>
      a.key.createdAt.getTime() - b.key.createdAt.getTime() ||
      (a.key.id < b.key.id ? -1 : a.key.id > b.key.id ? 1 : 0),
  );
}

/** Records a revocation for one organisation; false when there already was one. */
export async function insertOrgRevocation(
  db: DbOrTx,
  row: { keyId: string; orgId: string; revokedAt: Date; revokedByUserId: string | null },
): Promise<boolean> {
  const inserted = await db
    .insert(apiKeyOrgRevocations)
    .values(row)
    .onConflictDoNothing()
    .returning({ keyId: apiKeyOrgRevocations.keyId });
  return inserted.length === 1;
}

/** The revocations for single organisations of these keys, with the organisations' names. */
export async function listOrgRevocationsOfKeys(
  db: DbOrTx,
  keyIds: readonly string[],
): Promise<{ keyId: string; orgId: string; orgName: string; revokedAt: Date }[]> {
  if (keyIds.length === 0) return [];
  return db
    .select({
      keyId: apiKeyOrgRevocations.keyId,
      orgId: apiKeyOrgRevocations.orgId,
      orgName: organisations.name,
      revokedAt: apiKeyOrgRevocations.revokedAt,
    })
    .from(apiKeyOrgRevocations)
    .innerJoin(organisations, eq(organisations.id, apiKeyOrgRevocations.orgId))
    .where(inArray(apiKeyOrgRevocations.keyId, [...keyIds]))
    .orderBy(asc(apiKeyOrgRevocations.revokedAt), asc(apiKeyOrgRevocations.orgId));
}

/** A partner's keys, oldest first, with their creators and whether those still own it. */
export function listPartnerKeyRows(
  db: DbOrTx,
  partnerId: string,
): Promise<{ key: ApiKeyRow; creatorEmail: string; creatorOwnsPartner: boolean }[]> {
  return db
    .select({
      key: apiKeys,
      creatorEmail: users.email,
      creatorOwnsPartner: sql<boolean>`${partnerOwners.userId} is not null`,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.createdByUserId))
    .leftJoin(partnerOwners, CREATOR_OWNS_PARTNER)
    .where(and(eq(apiKeys.kind, "PARTNER"), eq(apiKeys.partnerId, partnerId)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}
