import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

export const PLANS = ["Free", "Pocket", "Wallet", "Vault", "Reserve"] as const;
export type Plan = (typeof PLANS)[number];

export const SUBSCRIPTION_STATUSES = [
  "trialing",
  "active",
  "past_due",
  "canceled",
  "trial_ended",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** A billing account owns seats and one subscription (a Personal account has one seat). */
export const billingAccounts = pgTable("billing_accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  ownerUserId: text("owner_user_id").notNull(),
  plan: text("plan", { enum: PLANS }).notNull(),
  subscriptionStatus: text("subscription_status", { enum: SUBSCRIPTION_STATUSES }).notNull(),
  /** End of the free trial; meaningful while subscriptionStatus is `trialing`. */
  trialEndsAt: timestamp("trial_ends_at", { withTimezone: true }),
  autoTopUp: boolean("auto_top_up").notNull().default(false),
  createdAt: createdAt(),
});

export const organisations = pgTable("organisations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  baseCurrency: text("base_currency").notNull().default("AUD"),
  /** IANA zone name; the ledger's Windows zone names are mapped on import. */
  timezone: text("timezone").notNull().default("Australia/Sydney"),
  financialYearEndMonth: integer("financial_year_end_month").notNull().default(6),
  financialYearEndDay: integer("financial_year_end_day").notNull().default(30),
  /** The billing account whose seats pay for this organisation's queries; null = none. */
  billingAccountId: text("billing_account_id").references(() => billingAccounts.id),
  /** The ledger's own organisation id (OrganisationID), once imported. */
  ledgerOrganisationId: text("ledger_organisation_id"),
  /**
   * The owner's setting: READ_SENSITIVE only through organisation (`cr_live_`) keys. While true,
   * personal (USER) and partner keys read this organisation without READ_SENSITIVE, whatever they
   * carry (evaluated on every request; the keys themselves are not changed).
   */
  restrictSensitiveToOrgKeys: boolean("restrict_sensitive_to_org_keys").notNull().default(false),
  /**
   * The owner's runway threshold (base currency): the dashboard counts weeks until the BASE
   * forecast's closing cash goes below it. null = zero.
   */
  runwayThreshold: numeric("runway_threshold"),
  createdAt: createdAt(),
});

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name"),
    /** scrypt hash for the settings screen; null until a password is set. */
    passwordHash: text("password_hash"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  "memberships",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    role: text("role", { enum: ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index("memberships_user_idx").on(t.userId)],
);

/** A user on a billing account; the seat's plan sets the user's query allowance. */
export const seats = pgTable(
  "seats",
  {
    billingAccountId: text("billing_account_id")
      .notNull()
      .references(() => billingAccounts.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    plan: text("plan", { enum: PLANS }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.billingAccountId, t.userId] }),
    index("seats_user_idx").on(t.userId),
  ],
);

/** An advisory partner (an accounting practice) that reads its linked client organisations. */
export const partners = pgTable("partners", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

/**
 * The partner's owners: the users who run it, create and revoke its keys, and add, remove or
 * replace owners. A partner key works only while its creator is one of them (its credits are the
 * creator's). A partner always keeps at least one owner.
 */
export const partnerOwners = pgTable(
  "partner_owners",
  {
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.partnerId, t.userId] }),
    index("partner_owners_user_idx").on(t.userId),
  ],
);

export const partnerLinks = pgTable(
  "partner_links",
  {
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.partnerId, t.orgId] }),
    index("partner_links_org_idx").on(t.orgId),
  ],
);
