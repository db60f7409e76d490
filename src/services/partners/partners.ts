import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { organisations, partnerLinks, partners, users } from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { quoted } from "../../domain/quoted.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";
import { EMAIL, findUserByEmail } from "../users/create-user.ts";

/** Creates an advisory partner and its partner user (the creator of its keys). */
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
    await tx.insert(partners).values({ id, name, ownerUserId, createdAt: now });
    return { id, ownerUserId };
  });
}

async function requirePartnerAndOrg(db: DbOrTx, partnerId: string, orgId: string) {
  const [p] = await db.select({ id: partners.id }).from(partners).where(eq(partners.id, partnerId));
  if (!p) throw new NotFoundError(`partner ${partnerId}`);
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
