import { and, asc, count, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { memberships, organisations, users } from "../../db/schema/index.ts";

/** An organisation and the e-mail address of its (first) owner, for `serve`'s closing lines. */
export interface OrgOwner {
  orgId: string;
  name: string;
  ownerEmail: string | undefined;
}

/**
 * The first `limit` organisations by creation, each with its owner's e-mail address (the owner
 * who joined first), and how many organisations there are in all.
 */
export async function listOrgOwners(
  db: DbOrTx,
  limit: number,
): Promise<{ total: number; orgs: OrgOwner[] }> {
  const [counted] = await db.select({ n: count() }).from(organisations);
  const first = await db
    .select({ orgId: organisations.id, name: organisations.name })
    .from(organisations)
    .orderBy(asc(organisations.createdAt), asc(organisations.id))
    .limit(limit);
  const orgs: OrgOwner[] = [];
  for (const org of first) {
    const [owner] = await db
      .select({ email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, org.orgId), eq(memberships.role, "owner")))
      .orderBy(asc(memberships.createdAt), asc(users.id))
      .limit(1);
    orgs.push({ ...org, ownerEmail: owner?.email });
  }
  return { total: counted?.n ?? 0, orgs };
}
