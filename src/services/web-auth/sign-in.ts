import { and, desc, eq, gt, inArray, lt, max, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { type LoginOutcome, webLoginAttempts } from "../../db/schema/index.ts";
import { findUserByEmail } from "../users/create-user.ts";
import { dummyPasswordHash, MAX_PASSWORD_LENGTH, verifyPassword } from "./password.ts";

/**
 * The lockout against password guessing. Failed sign-ins are counted over a sliding window:
 *
 * - per email (whether or not a user has it, so the lockout reveals nothing about which emails
 *   exist): 5 failures within 15 minutes lock that email until the oldest of them leaves the
 *   window; a success or a password change restarts the count;
 * - per client address: 20 failures within 15 minutes lock the address the same way, which
 *   slows one client trying many emails.
 *
 * While locked, no password is checked at all (not even a correct one), so guessing gains
 * nothing: at most 5 guesses per email per 15 minutes, 480 a day.
 */
export const LOCKOUT = {
  windowMs: 15 * 60_000,
  maxFailuresPerEmail: 5,
  maxFailuresPerAddress: 20,
} as const;

/** Attempts older than this are pruned (they no longer count). */
const RETENTION_MS = 24 * 60 * 60_000;
const MAX_EMAIL_LENGTH = 320;

/** The outcome of a sign-in: the user, or why not (locked carries the wait in seconds). */
export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid_credentials" }
  | { ok: false; reason: "locked"; retryAfterSeconds: number };

/** Emails are compared lower-cased and trimmed, as `users_email_key` does. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase().slice(0, MAX_EMAIL_LENGTH);
}

/**
 * How long the email or address stays locked, in seconds; 0 when not locked. Failures of the
 * email before its last success or password change do not count.
 */
export async function lockoutRemainingSeconds(
  db: DbOrTx,
  input: { email: string; ip: string; now: Date },
): Promise<number> {
  const email = normaliseEmail(input.email);
  const windowStart = new Date(input.now.getTime() - LOCKOUT.windowMs);
  // The last success or password change, by insertion order (instants can tie at a millisecond).
  const [restart] = await db
    .select({ id: max(webLoginAttempts.id) })
    .from(webLoginAttempts)
    .where(
      and(
        eq(webLoginAttempts.email, email),
        inArray(webLoginAttempts.outcome, ["success", "reset"]),
        gt(webLoginAttempts.at, windowStart),
      ),
    );
  const byEmail = await nthRecentFailure(
    db,
    restart?.id
      ? and(eq(webLoginAttempts.email, email), gt(webLoginAttempts.id, restart.id))
      : eq(webLoginAttempts.email, email),
    windowStart,
    LOCKOUT.maxFailuresPerEmail,
  );
  const byAddress = await nthRecentFailure(
    db,
    eq(webLoginAttempts.ip, input.ip),
    windowStart,
    LOCKOUT.maxFailuresPerAddress,
  );
  let until = 0;
  for (const oldest of [byEmail, byAddress]) {
    if (oldest) until = Math.max(until, oldest.getTime() + LOCKOUT.windowMs);
  }
  return Math.max(0, Math.ceil((until - input.now.getTime()) / 1000));
}

/** The `n`-th most recent failure after `since`, or undefined when there are fewer than n. */
async function nthRecentFailure(
  db: DbOrTx,
  who: SQL | undefined,
  since: Date,
  n: number,
): Promise<Date | undefined> {
  const rows = await db
    .select({ at: webLoginAttempts.at })
    .from(webLoginAttempts)
    .where(and(who, eq(webLoginAttempts.outcome, "failure"), gt(webLoginAttempts.at, since)))
    .orderBy(desc(webLoginAttempts.at))
    .limit(n);
  return rows.length >= n ? rows[n - 1]?.at : undefined;
}

/**
 * Appends one attempt row, and prunes this email's and address's rows past retention. Returns
 * the row's id.
 */
export async function recordLoginAttempt(
  db: DbOrTx,
  input: { email: string; ip: string; outcome: LoginOutcome; now: Date },
): Promise<number> {
  const email = normaliseEmail(input.email);
  const [row] = await db
    .insert(webLoginAttempts)
    .values({ email, ip: input.ip, outcome: input.outcome, at: input.now })
    .returning({ id: webLoginAttempts.id });
  const cutoff = new Date(input.now.getTime() - RETENTION_MS);
  await db
    .delete(webLoginAttempts)
    .where(
      and(
        lt(webLoginAttempts.at, cutoff),
        or(eq(webLoginAttempts.email, email), eq(webLoginAttempts.ip, input.ip)),
      ),
    );
  if (!row) throw new Error("login attempt insert returned no row");
  return row.id;
}

/**
 * Checks an email and password, with the lockout. An unknown email, a user without a password
 * and a wrong password all answer `invalid_credentials` after the same scrypt work, so neither
 * the answer nor its timing tells them apart.
 *
 * The attempt is counted before its password is checked: under locks on its email and its
 * address (advisory, so they hold across instances), the lockout is read and the attempt is
 * recorded as a failure in one transaction; a right password then turns that row into a
 * success. Attempts sent at the same moment therefore count against each other: of 30 parallel
 * guesses at one email, 5 are checked and 25 are refused. (Counting after the ~100 ms scrypt
 * check let every attempt in flight pass the lockout: 20 of 30 were checked.)
 */
export async function signIn(
  db: DbOrTx,
  input: { email: string; password: string; ip: string; now: Date },
): Promise<SignInResult> {
  const email = normaliseEmail(input.email);
  const admitted = await db.transaction(async (tx) => {
    // Both locks in one order (sorted keys), so two attempts never wait for each other's second.
    for (const key of [`web-login:email:${email}`, `web-login:ip:${input.ip}`].sort()) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
    }
    const remaining = await lockoutRemainingSeconds(tx, { email, ip: input.ip, now: input.now });
    if (remaining > 0) {
      await recordLoginAttempt(tx, { email, ip: input.ip, outcome: "locked", now: input.now });
      return { locked: true, retryAfterSeconds: remaining } as const;
    }
    return {
      locked: false,
      attemptId: await recordLoginAttempt(tx, {
        email,
        ip: input.ip,
        outcome: "failure",
        now: input.now,
      }),
    } as const;
  });
  if (admitted.locked) {
    return { ok: false, reason: "locked", retryAfterSeconds: admitted.retryAfterSeconds };
  }
  const user = email ? await findUserByEmail(db, email) : undefined;
  const stored = user?.passwordHash ?? (await dummyPasswordHash());
  const password = input.password.slice(0, MAX_PASSWORD_LENGTH + 1);
  const matches = (await verifyPassword(password, stored)) && Boolean(user?.passwordHash);
  if (!matches || !user) return { ok: false, reason: "invalid_credentials" };
  await db
    .update(webLoginAttempts)
    .set({ outcome: "success" })
    .where(eq(webLoginAttempts.id, admitted.attemptId));
  return { ok: true, userId: user.id };
}
