import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { users } from "../../db/schema/index.ts";
import { NotFoundError } from "../errors.ts";
import { findUserByEmail } from "../users/create-user.ts";
import { generatePassword, hashPassword, validateNewPassword } from "./password.ts";
import { endUserSessions } from "./sessions.ts";
import { recordLoginAttempt } from "./sign-in.ts";

/** Who gets the password: a user id or an email (case-insensitive). */
export type PasswordTarget = { userId: string } | { email: string };

/**
 * Sets a user's settings-screen password (scrypt). Every session of the user ends, and the
 * sign-in lockout count of the email restarts. The password is never stored or logged.
 */
export async function setUserPassword(
  db: DbOrTx,
  input: { target: PasswordTarget; password: string; now: Date },
): Promise<{ userId: string; email: string; sessionsEnded: number }> {
  validateNewPassword(input.password);
  const user =
    "userId" in input.target
      ? (await db.select().from(users).where(eq(users.id, input.target.userId)).limit(1))[0]
      : await findUserByEmail(db, input.target.email);
  if (!user) {
    const what = "userId" in input.target ? input.target.userId : input.target.email;
    throw new NotFoundError(`user ${what}`);
  }
  const passwordHash = await hashPassword(input.password);
  await db.update(users).set({ passwordHash }).where(eq(users.id, user.id));
  const sessionsEnded = await endUserSessions(db, user.id);
  await recordLoginAttempt(db, { email: user.email, ip: "-", outcome: "reset", now: input.now });
  return { userId: user.id, email: user.email, sessionsEnded };
}

/**
 * Gives the demo organisation's owner a freshly generated password (100 random bits) so that
 * the settings screen can be signed in to on first start. The caller prints `email` and
 * `password` once in the start message; only the scrypt hash is kept. Calling it again
 * replaces the password (and ends the owner's sessions).
 */
export async function setDemoOwnerPassword(
  db: DbOrTx,
  userId: string,
  now: Date,
): Promise<{ email: string; password: string }> {
  const password = generatePassword();
  const set = await setUserPassword(db, { target: { userId }, password, now });
  return { email: set.email, password };
}
