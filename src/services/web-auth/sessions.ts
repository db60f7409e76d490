import { and, eq, lt, or } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { users, webSessions } from "../../db/schema/index.ts";
import { digestToken, isWellFormedToken, newRandomToken } from "./tokens.ts";

/**
 * Session lifetimes. A finance settings screen favours short sessions: two idle hours sign the
 * user out, and no session lives longer than twelve hours whatever the activity.
 */
export const SESSION_IDLE_MS = 2 * 60 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000;
/** `last_seen_at` is written at most this often, so page views do not each cost a write. */
const TOUCH_INTERVAL_MS = 60_000;

/** A new session: `token` goes into the cookie and is never stored or logged. */
export interface CreatedSession {
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

/** A live session with its user. */
export interface SessionView {
  tokenDigest: string;
  userId: string;
  email: string;
  userName: string | null;
  /** The organisation last selected; re-check membership before use. */
  orgId: string | null;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Starts a session for a user who just proved their password. A fresh token every time (never a
 * token the browser brought along), so a planted cookie cannot be fixed onto the new session.
 * The user's expired sessions are swept at the same time.
 */
export async function createSession(
  db: DbOrTx,
  input: { userId: string; orgId: string | null; now: Date },
): Promise<CreatedSession> {
  const token = newRandomToken();
  const csrfToken = newRandomToken();
  const expiresAt = new Date(input.now.getTime() + SESSION_ABSOLUTE_MS);
  await db
    .delete(webSessions)
    .where(
      and(
        eq(webSessions.userId, input.userId),
        or(
          lt(webSessions.expiresAt, input.now),
          lt(webSessions.lastSeenAt, new Date(input.now.getTime() - SESSION_IDLE_MS)),
        ),
      ),
    );
  await db.insert(webSessions).values({
    tokenDigest: digestToken(token),
    userId: input.userId,
    orgId: input.orgId,
    csrfToken,
    createdAt: input.now,
    lastSeenAt: input.now,
    expiresAt,
  });
  return { token, csrfToken, expiresAt };
}

/**
 * The session a cookie token names, or null when the token is malformed, unknown, past its
 * absolute end or idle for too long (an expired row is deleted on sight).
 */
export async function loadSession(
  db: DbOrTx,
  token: string | undefined | null,
  now: Date,
): Promise<SessionView | null> {
  if (!isWellFormedToken(token)) return null;
  const tokenDigest = digestToken(token);
  const [row] = await db
    .select({
      tokenDigest: webSessions.tokenDigest,
      userId: webSessions.userId,
      email: users.email,
      userName: users.name,
      orgId: webSessions.orgId,
      csrfToken: webSessions.csrfToken,
      createdAt: webSessions.createdAt,
      lastSeenAt: webSessions.lastSeenAt,
      expiresAt: webSessions.expiresAt,
    })
    .from(webSessions)
    .innerJoin(users, eq(users.id, webSessions.userId))
    .where(eq(webSessions.tokenDigest, tokenDigest))
    .limit(1);
  if (!row) return null;
  const idleSince = now.getTime() - row.lastSeenAt.getTime();
  if (row.expiresAt.getTime() <= now.getTime() || idleSince >= SESSION_IDLE_MS) {
    await db.delete(webSessions).where(eq(webSessions.tokenDigest, tokenDigest));
    return null;
  }
  if (idleSince >= TOUCH_INTERVAL_MS) {
    await db
      .update(webSessions)
      .set({ lastSeenAt: now })
      .where(eq(webSessions.tokenDigest, tokenDigest));
  }
  const { lastSeenAt: _seen, ...view } = row;
  return view;
}

/** Ends one session (sign out). Ending an unknown session is a no-op. */
export async function endSession(db: DbOrTx, tokenDigest: string): Promise<void> {
  await db.delete(webSessions).where(eq(webSessions.tokenDigest, tokenDigest));
}

/** Ends every session of a user, e.g. after a password change. Returns how many ended. */
export async function endUserSessions(db: DbOrTx, userId: string): Promise<number> {
  const rows = await db
    .delete(webSessions)
    .where(eq(webSessions.userId, userId))
    .returning({ d: webSessions.tokenDigest });
  return rows.length;
}

/** Records which organisation the session is looking at (membership checked by the caller). */
export async function setSessionOrg(
  db: DbOrTx,
  tokenDigest: string,
  orgId: string | null,
): Promise<void> {
  await db.update(webSessions).set({ orgId }).where(eq(webSessions.tokenDigest, tokenDigest));
}
