import { bigserial, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { organisations, users } from "./tenancy.ts";

/**
 * Signed-in sessions of the settings screen. The cookie carries a random token; only its SHA-256
 * is stored (the primary key), so a read of this table cannot be replayed as a cookie.
 */
export const webSessions = pgTable(
  "web_sessions",
  {
    /** SHA-256 of the cookie token, hex. */
    tokenDigest: text("token_digest").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /**
     * The organisation the user is looking at. Membership is re-checked on every request, so a
     * stale value after a removed membership grants nothing.
     */
    orgId: text("org_id").references(() => organisations.id),
    /** Per-session CSRF token, echoed in every form; useless without the session cookie. */
    csrfToken: text("csrf_token").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull(),
    /** Absolute end of the session, whatever the activity. */
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("web_sessions_user_idx").on(t.userId)],
);

export const LOGIN_OUTCOMES = ["success", "failure", "locked", "reset"] as const;
export type LoginOutcome = (typeof LOGIN_OUTCOMES)[number];

/**
 * Sign-in attempts, for the lockout against password guessing. Kept per email (lower-cased,
 * whether or not a user has it, so the lockout never tells which emails exist) and per client
 * address. `reset` marks a password change, which restarts the count.
 */
export const webLoginAttempts = pgTable(
  "web_login_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    email: text("email").notNull(),
    ip: text("ip").notNull(),
    outcome: text("outcome", { enum: LOGIN_OUTCOMES }).notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
  },
  (t) => [
    index("web_login_attempts_email_at_idx").on(t.email, t.at),
    index("web_login_attempts_ip_at_idx").on(t.ip, t.at),
  ],
);
