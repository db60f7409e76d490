import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { memberships, organisations, type Role, users } from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";

export async function findUserByEmail(db: DbOrTx, email: string) {
  const rows = await db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`)
    .limit(1);
  return rows[0];
}

/** What the service accepts as an email address (users, organisation and partner owners). */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Creates a user, or finds the existing one with that email (case-insensitive), and with `orgId`
 * gives it a membership in that organisation (an existing membership keeps its role unless
 * `role` is given, which updates it).
 */
export async function createUser(
  db: DbOrTx,
  input: { email: string; name?: string; orgId?: string; role?: Role },
  now: Date,
): Promise<{ id: string; created: boolean; membership?: { orgId: string; role: Role } }> {
  const email = input.email.trim();
  if (!EMAIL.test(email))
    throw new InvalidParameterError("email", `email: "${email}" is not an email address`);
  return db.transaction(async (tx) => {
    let user = await findUserByEmail(tx, email);
    const created = !user;
    if (!user) {
      const id = newId("usr");
      await tx.insert(users).values({ id, email, name: input.name ?? null, createdAt: now });
      user = { id, email, name: input.name ?? null, passwordHash: null, createdAt: now };
    }
    if (!input.orgId) return { id: user.id, created };
    const org = await tx
      .select({ id: organisations.id })
      .from(organisations)
      .where(eq(organisations.id, input.orgId));
    if (org.length === 0) throw new NotFoundError(`organisation ${input.orgId}`);
    const [existing] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.orgId, input.orgId), eq(memberships.userId, user.id)))
      .for("update");
    if (existing && (input.role === undefined || input.role === existing.role)) {
      return { id: user.id, created, membership: { orgId: input.orgId, role: existing.role } };
    }
    const role = input.role ?? "member";
    if (existing?.role === "owner") {
      // Never leave an organisation without an owner: its billing and keys hang on one.
      const owners = await tx
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.orgId, input.orgId), eq(memberships.role, "owner")))
        .for("update");
      if (owners.length <= 1) {
        throw new InvalidParameterError(
          "role",
          `role: ${email} is the only owner of ${input.orgId}; make another user owner first`,
        );
      }
    }
    await tx
      .insert(memberships)
      .values({ orgId: input.orgId, userId: user.id, role, createdAt: now })
      .onConflictDoUpdate({ target: [memberships.orgId, memberships.userId], set: { role } });
    return { id: user.id, created, membership: { orgId: input.orgId, role } };
  });
}
