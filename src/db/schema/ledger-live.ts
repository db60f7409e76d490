import {
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { ledgerConnections } from "./ledger.ts";
import { organisations, users } from "./tenancy.ts";

const instant = (name: string) => timestamp(name, { withTimezone: true });

/**
 * The OAuth side of a live ledger (Xero) connection: which tenant it reads and the tokens, both
 * sealed with AES-256-GCM under LEDGER_TOKEN_KEY (never stored or logged in clear). One per
 * connection; a tenant links to one organisation only (the unique index refuses a second).
 * Refreshes take this row `FOR UPDATE`, so exactly one refresh runs per connection across
 * instances and the rotated refresh token is committed before it is used.
 */
export const ledgerCredentials = pgTable(
  "ledger_credentials",
  {
    connectionId: text("connection_id")
      .primaryKey()
      .references(() => ledgerConnections.id),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id),
    tenantId: text("tenant_id").notNull(),
    tenantName: text("tenant_name"),
    /** The ledger's id of the grant to this tenant (`GET /connections` → id), for disconnect. */
    ledgerConnectionId: text("ledger_connection_id"),
    accessTokenSealed: text("access_token_sealed").notNull(),
    accessExpiresAt: instant("access_expires_at").notNull(),
    refreshTokenSealed: text("refresh_token_sealed").notNull(),
    scope: text("scope"),
    refreshedAt: instant("refreshed_at"),
    /** Last full read of every resource (the nightly sweep catches what deltas miss). */
    lastFullSyncAt: instant("last_full_sync_at"),
    /** When a failing or throttled connection will be tried again (retrying state). */
    nextAttemptAt: instant("next_attempt_at"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /**
     * Why the connection is retrying (with nextAttemptAt): `unavailable` (faults, breaker open),
     * `rate_limited` (429s), `budget` (daily call budget spent), `error` (a failed sync, e.g. a
     * malformed record). The ledgerAlert's message says it with the retry time.
     */
    retryReason: text("retry_reason", {
      enum: ["unavailable", "rate_limited", "budget", "error"],
    }),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("ledger_credentials_tenant_key").on(t.tenantId),
    index("ledger_credentials_org_idx").on(t.orgId),
  ],
);

/** Per organisation and resource: the If-Modified-Since watermark of incremental syncs. */
export const ledgerWatermarks = pgTable(
  "ledger_watermarks",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id),
    resource: text("resource").notNull(),
    /** The latest UpdatedDateUTC read for this resource. */
    watermark: instant("watermark").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.resource] })],
);

export const LEDGER_AUTH_STATUSES = ["pending", "choose_tenant", "linked", "failed"] as const;

/**
 * One authorization in progress: the single-use `state` (stored as its SHA-256), bound to the
 * user and web session (or `cli`) that started it, with the PKCE verifier sealed. After the
 * callback it holds the outcome, and, when the grant reaches several tenants, the sealed tokens
 * and the tenant list until one is picked.
 */
export const ledgerAuthorizations = pgTable("ledger_authorizations", {
  stateDigest: text("state_digest").primaryKey(),
  orgId: text("org_id")
    .notNull()
    .references(() => organisations.id),
  userId: text("user_id").references(() => users.id),
  /** SHA-256 of the web session's token, or `cli` for a headless connect. */
  sessionDigest: text("session_digest").notNull(),
  codeVerifierSealed: text("code_verifier_sealed").notNull(),
  redirectUri: text("redirect_uri").notNull(),
  status: text("status", { enum: LEDGER_AUTH_STATUSES }).notNull().default("pending"),
  /** Sealed token answer, kept only while a tenant is to be picked. */
  tokensSealed: text("tokens_sealed"),
  /** `[{ tenantId, tenantName, id }]` from `GET /connections`, while a tenant is to be picked. */
  tenants: jsonb("tenants"),
  error: text("error"),
  createdAt: instant("created_at").notNull(),
  expiresAt: instant("expires_at").notNull(),
});

/**
 * Ledger calls per tenant, shared by every instance on one PostgreSQL database: a call takes a
 * row before it is sent (under an advisory lock per tenant) and marks it finished on its answer,
 * so the 5 in flight, 60 a minute and the daily budget hold across instances
 * (`src/services/ledger/shared-limits.ts`). Rows older than two days are pruned by the scheduler.
 */
export const ledgerCallSlots = pgTable(
  "ledger_call_slots",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    startedAt: instant("started_at").notNull(),
    /** Null while the call is in flight. */
    finishedAt: instant("finished_at"),
  },
  (t) => [index("ledger_call_slots_tenant_started_idx").on(t.tenantId, t.startedAt)],
);
