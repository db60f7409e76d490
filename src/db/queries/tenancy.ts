import { and, asc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import {
  memberships,
  organisations,
  partnerLinks,
  partnerOwners,
  partners,
  type Role,
  users,
} from "../schema/index.ts";

/** The organisation's owner (the earliest owner membership), or undefined for no such org. */
export async function findOrgOwnerUserId(db: DbOrTx, orgId: string): Promise<string | undefined> {
  const rows = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner")))
    .orderBy(asc(memberships.createdAt), asc(memberships.userId))
    .limit(1);
  return rows[0]?.userId;
}

export async function userExists(db: DbOrTx, userId: string): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1);
  return rows.length === 1;
}

export async function findPartner(db: DbOrTx, partnerId: string) {
  const rows = await db.select().from(partners).where(eq(partners.id, partnerId)).limit(1);
  return rows[0];
}

/** The partner's owners' user ids, oldest first. */
export async function partnerOwnerIds(db: DbOrTx, partnerId: string): Promise<string[]> {
  const rows = await db
    .select({ userId: partnerOwners.userId })
    .from(partnerOwners)
    .where(eq(partnerOwners.partnerId, partnerId))
    .orderBy(asc(partnerOwners.createdAt), asc(partnerOwners.userId));
  return rows.map((r) => r.userId);
}

/** The user's memberships with their role and each organisation's sensitive-key setting. */
export function membershipsForKeyRules(
  db: DbOrTx,
  userId: string,
): Promise<{ orgId: string; role: Role; restrictSensitiveToOrgKeys: boolean }[]> {
  return db
    .select({
      orgId: memberships.orgId,
      role: memberships.role,
      restrictSensitiveToOrgKeys: organisations.restrictSensitiveToOrgKeys,
    })
    .from(memberships)
    .innerJoin(organisations, eq(organisations.id, memberships.orgId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.orgId));
}

/** Which of `orgIds` are linked to the partner right now. */
export async function linkedOrgIds(
  db: DbOrTx,
  partnerId: string,
  orgIds: readonly string[],
): Promise<string[]> {
  if (orgIds.length === 0) return [];
  const rows = await db
    .select({ orgId: partnerLinks.orgId })
    .from(partnerLinks)
    .where(and(eq(partnerLinks.partnerId, partnerId), inArray(partnerLinks.orgId, [...orgIds])));
  return rows.map((r) => r.orgId);
}
