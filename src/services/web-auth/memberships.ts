import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { memberships, organisations, type Role } from "../../db/schema/index.ts";

/** One organisation a user belongs to, with the user's role there. */
export interface UserMembership {
  orgId: string;
  orgName: string;
  role: Role;
}

/** The user's organisations by name (byte order, then id), read fresh on every request. */
export async function listUserMemberships(db: DbOrTx, userId: string): Promise<UserMembership[]> {
  return db
    .select({ orgId: organisations.id, orgName: organisations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organisations, eq(organisations.id, memberships.orgId))
    .where(eq(memberships.userId, userId))
    .orderBy(sql`${organisations.name} collate "C"`, sql`${organisations.id} collate "C"`);
}
