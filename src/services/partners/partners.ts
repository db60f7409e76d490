import { and, asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import {
  organisations,
  partnerLinks,
  partnerOwners,
  partners,
  users,
} from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { quoted } from "../../domain/quoted.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";
import { EMAIL, findUserByEmail } from "../users/create-user.ts";

/**
 * Creates an advisory partner and its first owner: the user with `ownerEmail` (created when
 * there is none), or a new placeholder user without an email of its own.
 */
export async function createPartner(
  db: DbOrTx,
  input: { name: string; ownerEmail?: string },
  now: Date,
): Promise<{ id: string; ownerUserId: string }> {
  const name = input.name.trim();
  if (!name) throw new InvalidParameterError("name", "name: must not be empty");
  if (input.ownerEmail !== undefined && !EMAIL.test(input.ownerEmail.trim())) {
    throw new InvalidParameterError(
      "ownerEmail",
      `owner email: ${quoted(input.ownerEmail)} is not an email address`,
    );
  }
  return db.transaction(async (tx) => {
    const id = newId("prt");
    const existing = input.ownerEmail ? await findUserByEmail(tx, input.ownerEmail) : undefined;
    const ownerUserId = existing?.id ?? newId("usr");
    if (!existing) {
      await tx.insert(users).values({
        id: ownerUserId,
        email: input.ownerEmail ?? `partner+${id}@cashrunway.local`,
        name: `${name} (partner)`,
        createdAt: now,
      });
    }
    await tx.insert(partners).values({ id, name, createdAt: now });
    await tx.insert(partnerOwners).values({ partnerId: id, userId: ownerUserId, createdAt: now });
    return { id, ownerUserId };
  });
}

export interface PartnerOwner {
  userId: string;
  email: string;
  since: Date;
}

/** The partner, or undefined. */
export async function findPartnerById(
  db: DbOrTx,
  partnerId: string,
): Promise<{ id: string; name: string } | undefined> {
  const [p] = await db
    .select({ id: partners.id, name: partners.name })
    .from(partners)
    .where(eq(partners.id, partnerId))
    .limit(1);
  return p;
}

/** A partner's owners, oldest first. */
export function listPartnerOwners(db: DbOrTx, partnerId: string): Promise<PartnerOwner[]> {
  return db
    .select({ userId: users.id, email: users.email, since: partnerOwners.createdAt })
    .from(partnerOwners)
    .innerJoin(users, eq(users.id, partnerOwners.userId))
    .where(eq(partnerOwners.partnerId, partnerId))
    .orderBy(asc(partnerOwners.createdAt), asc(partnerOwners.userId));
}

/** Whether the user owns the partner now. */
export async function isPartnerOwner(
  db: DbOrTx,
  partnerId: string,
  userId: string,
): Promise<boolean> {
  const rows = await db
    .select({ userId: partnerOwners.userId })
    .from(partnerOwners)
    .where(and(eq(partnerOwners.partnerId, partnerId), eq(partnerOwners.userId, userId)))
    .limit(1);
  return rows.length === 1;
}

/** The partners the user owns, by name (byte order, then id). */
export function listPartnersOwnedBy(
  db: DbOrTx,
  userId: string,
): Promise<{ id: string; name: string }[]> {
  return db
    .select({ id: partners.id, name: partners.name })
    .from(partnerOwners)
    .innerJoin(partners, eq(partners.id, partnerOwners.partnerId))
    .where(eq(partnerOwners.userId, userId))
    .orderBy(sql`${partners.name} collate "C"`, asc(partners.id));
}

async function requirePartner(db: DbOrTx, partnerId: string): Promise<void> {
  if (!(await findPartnerById(db, partnerId))) throw new NotFoundError(`partner ${partnerId}`);
}

/** The existing user with this email; owners are existing users (`cashrunway user create`). */
async function requireUserByEmail(db: DbOrTx, email: string): Promise<{ id: string }> {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed)) {
    throw new InvalidParameterError("email", `email: ${quoted(email)} is not an email address`);
  }
  const user = await findUserByEmail(db, trimmed);
  if (!user) {
    throw new NotFoundError(
      `user with email ${quoted(trimmed)} (an operator creates users with \`cashrunway user create\`)`,
    );
  }
  return user;
}

/** Locks the partner's owner rows (so concurrent removals cannot leave it without one). */
async function lockedOwnerIds(db: DbOrTx, partnerId: string): Promise<string[]> {
  const rows = await db
    .select({ userId: partnerOwners.userId })
    .from(partnerOwners)
    .where(eq(partnerOwners.partnerId, partnerId))
    .for("update");
  return rows.map((r) => r.userId);
}

/** Adds an owner (an existing user, by email); adding an owner twice changes nothing. */
export async function addPartnerOwner(
  db: DbOrTx,
  input: { partnerId: string; email: string },
  now: Date,
): Promise<{ partnerId: string; userId: string; added: boolean }> {
  return db.transaction(async (tx) => {
    await requirePartner(tx, input.partnerId);
    const user = await requireUserByEmail(tx, input.email);
    const inserted = await tx
      .insert(partnerOwners)
      .values({ partnerId: input.partnerId, userId: user.id, createdAt: now })
      .onConflictDoNothing()
      .returning({ userId: partnerOwners.userId });
    return { partnerId: input.partnerId, userId: user.id, added: inserted.length === 1 };
  });
}

/**
 * Removes an owner. The partner keys that user created stop working at once, on every instance
 * (authentication reads whether a partner key's creator still owns its partner; the change moves
 * the auth epoch). The last owner cannot be removed: transfer the partner instead.
 */
export async function removePartnerOwner(
  db: DbOrTx,
  input: { partnerId: string; userId: string },
): Promise<{ partnerId: string; userId: string }> {
  return db.transaction(async (tx) => {
    await requirePartner(tx, input.partnerId);
    const owners = await lockedOwnerIds(tx, input.partnerId);
    if (!owners.includes(input.userId)) {
      throw new NotFoundError(`owner ${input.userId} of partner ${input.partnerId}`);
    }
    if (owners.length === 1) {
      throw new InvalidParameterError(
        "owner",
        `${input.userId} is the only owner of partner ${input.partnerId}: add another owner or transfer the partner first`,
      );
    }
    await tx
      .delete(partnerOwners)
      .where(
        and(eq(partnerOwners.partnerId, input.partnerId), eq(partnerOwners.userId, input.userId)),
      );
    return { partnerId: input.partnerId, userId: input.userId };
  });
}

/**
 * Hands a partner from one owner to another user (by email) in one transaction: the new owner is
 * added, the old one removed, so the partner is never without an owner. The keys the old owner
 * created stop working (create their replacements as the new owner).
 */
export async function transferPartner(
  db: DbOrTx,
  input: { partnerId: string; fromUserId: string; toEmail: string },
  now: Date,
): Promise<{ partnerId: string; fromUserId: string; toUserId: string }> {
  return db.transaction(async (tx) => {
    await requirePartner(tx, input.partnerId);
    const owners = await lockedOwnerIds(tx, input.partnerId);
    if (!owners.includes(input.fromUserId)) {
      throw new NotFoundError(`owner ${input.fromUserId} of partner ${input.partnerId}`);
    }
    const to = await requireUserByEmail(tx, input.toEmail);
    if (to.id === input.fromUserId) {
      throw new InvalidParameterError("to", "to: the partner is already this user's");
    }
    await tx
      .insert(partnerOwners)
      .values({ partnerId: input.partnerId, userId: to.id, createdAt: now })
      .onConflictDoNothing();
    await tx
      .delete(partnerOwners)
      .where(
        and(
          eq(partnerOwners.partnerId, input.partnerId),
          eq(partnerOwners.userId, input.fromUserId),
        ),
      );
    return { partnerId: input.partnerId, fromUserId: input.fromUserId, toUserId: to.id };
  });
}

async function requirePartnerAndOrg(db: DbOrTx, partnerId: string, orgId: string) {
  await requirePartner(db, partnerId);
  const [o] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!o) throw new NotFoundError(`organisation ${orgId}`);
}

/** Links a client organisation to a partner; linking twice is a no-op. */
export async function linkPartner(db: DbOrTx, partnerId: string, orgId: string, now: Date) {
  await requirePartnerAndOrg(db, partnerId, orgId);
  await db.insert(partnerLinks).values({ partnerId, orgId, createdAt: now }).onConflictDoNothing();
  return { partnerId, orgId, linked: true };
}

/** Removes a link; keys that reached the organisation through it stop reaching it at once. */
export async function unlinkPartner(db: DbOrTx, partnerId: string, orgId: string) {
  await requirePartnerAndOrg(db, partnerId, orgId);
  await db
    .delete(partnerLinks)
    .where(and(eq(partnerLinks.partnerId, partnerId), eq(partnerLinks.orgId, orgId)));
  return { partnerId, orgId, linked: false };
}
