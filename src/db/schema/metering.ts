import {
  bigserial,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { billingAccounts, organisations, users } from "./tenancy.ts";

export const CREDIT_SOURCES = ["plan", "top_up"] as const;

const instant = (name: string) => timestamp(name, { withTimezone: true });

/**
 * One row per query credit used: an admitted agent call charged to (user, billing account). A
 * call that ends in a 5xx (or a 400/401/403 after admission) deletes its row: refunded.
 * `org_id` and `key_id` say what was read, for support. No column carries a foreign key: every
 * row is written by the metering functions for a (user, billing account) whose seat admission
 * has just read under the window row's lock, and the per-row checks were a third
 * of the insert's cost on the hot path (drizzle/0018_usage_rows_without_foreign_keys.sql).
 */
export const creditUses = pgTable(
  "credit_uses",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: text("user_id").notNull(),
    billingAccountId: text("billing_account_id").notNull(),
    orgId: text("org_id").notNull(),
    keyId: text("key_id").notNull(),
    /** Flat route template of the call. */
    route: text("route").notNull(),
    requestId: text("request_id").notNull(),
    /** `plan`: counts in the rolling window; `top_up`: spent from the prepaid balance. */
    source: text("source", { enum: CREDIT_SOURCES }).notNull(),
    at: instant("at").notNull(),
  },
  (t) => [index("credit_uses_window_idx").on(t.userId, t.billingAccountId, t.source, t.at)],
);

/**
 * Per (user, billing account): the row admission locks (so concurrent calls on every instance
 * queue here), the running count of plan uses newer than `cutoff` (so admission never counts
 * the whole window), and the prepaid top-up balance. Maintained by the `metering_*` functions.
 */
export const creditWindows = pgTable(
  "credit_windows",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    billingAccountId: text("billing_account_id")
      .notNull()
      .references(() => billingAccounts.id),
    /** Plan uses with `at > cutoff`. */
    used: integer("used").notNull(),
    cutoff: instant("cutoff").notNull(),
    topUpCredits: integer("top_up_credits").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.billingAccountId] })],
);

export const BILLING_EVENT_KINDS = [
  "top_up",
  "plan_changed",
  "status_changed",
  "trial_ends_changed",
  "auto_top_up_changed",
  "seat_changed",
] as const;
export type BillingEventKind = (typeof BILLING_EVENT_KINDS)[number];

/** What happened to a billing account: automatic top-up purchases and operator changes. */
export const billingEvents = pgTable(
  "billing_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    billingAccountId: text("billing_account_id")
      .notNull()
      .references(() => billingAccounts.id),
    kind: text("kind", { enum: BILLING_EVENT_KINDS }).notNull(),
    /** The seat's user for a top-up or seat change. */
    userId: text("user_id"),
    /** The organisation whose call triggered a top-up. */
    orgId: text("org_id"),
    /** Credits bought (top-up). */
    credits: integer("credits"),
    /** Before and after values of a change, the plan of a top-up, the request id. */
    details: jsonb("details"),
    at: instant("at").notNull(),
  },
  (t) => [index("billing_events_account_at_idx").on(t.billingAccountId, t.at)],
);

/** The legacy daily bucket: admitted credit-charged calls per organisation per UTC day. */
export const dailyQuotaUsage = pgTable(
  "daily_quota_usage",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id),
    day: date("day", { mode: "string" }).notNull(),
    used: integer("used").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.day] })],
);
