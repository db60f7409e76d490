import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { organisations, partners, users } from "./tenancy.ts";

/** `cr_live_` organisation keys, `crun_` USER and PARTNER keys. */
export const KEY_FAMILIES = ["cr_live", "crun"] as const;
export const KEY_KINDS = ["ORG", "USER", "PARTNER"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];
export const KEY_REACH = ["OWN_ORG", "USER_MEMBERSHIPS", "ALL_LINKED", "PINNED"] as const;
export type KeyReach = (typeof KEY_REACH)[number];

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    family: text("family", { enum: KEY_FAMILIES }).notNull(),
    kind: text("kind", { enum: KEY_KINDS }).notNull(),
    /** Public, unique display prefix: the middle part of `cr_live_<prefix>_<secret>`. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the secret, hex. The secret itself is never stored. */
    secretDigest: text("secret_digest").notNull(),
    label: text("label").notNull(),
    scopes: text("scopes").array().notNull(),
    /**
     * Which organisations the key reads: OWN_ORG (organisation key: `orgId`), USER_MEMBERSHIPS
     * (USER key: the creator's live memberships), ALL_LINKED (PARTNER key: the partner's live
     * links), PINNED (PARTNER key: `pinnedOrgIds` intersected with live links).
     */
    reach: text("reach", { enum: KEY_REACH }).notNull(),
    orgId: text("org_id").references(() => organisations.id),
    partnerId: text("partner_id").references(() => partners.id),
    pinnedOrgIds: text("pinned_org_ids").array(),
    createdByUserId: text("created_by_user_id")
      .notNull()
      .references(() => users.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    lastSensitiveAccessAt: timestamp("last_sensitive_access_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** Set on a key revoked by rotation: the key that replaced it. */
    replacedByKeyId: text("replaced_by_key_id"),
  },
  (t) => [
    uniqueIndex("api_keys_prefix_key").on(t.prefix),
    index("api_keys_org_idx").on(t.orgId),
    index("api_keys_partner_idx").on(t.partnerId),
    index("api_keys_creator_idx").on(t.createdByUserId),
  ],
);

/**
 * A personal (USER) or partner key revoked for one organisation by that organisation's owner:
 * the key no longer reaches it, whatever memberships or links say, and keeps reaching its other
 * organisations. Irreversible, like a revocation (a row is never deleted). An organisation key is
 * revoked outright instead (`api_keys.revoked_at`).
 */
export const apiKeyOrgRevocations = pgTable(
  "api_key_org_revocations",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    orgId: text("org_id")
      .notNull()
      .references(() => organisations.id),
    revokedAt: timestamp("revoked_at", { withTimezone: true }).notNull(),
    /** The owner who revoked it (null: an operator through the CLI). */
    revokedByUserId: text("revoked_by_user_id").references(() => users.id),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.orgId] })],
);

/**
 * One row per authenticated agent request. Append-only: a trigger in the migrations refuses
 * UPDATE, DELETE and TRUNCATE, so not even a bug in this code base can rewrite history.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /**
     * The authenticated key. No foreign key: the row is written for a key the request has just
     * verified, keys are never deleted, and the per-row check was a third of the batch insert's
     * cost (drizzle/0018_usage_rows_without_foreign_keys.sql).
     */
    keyId: text("key_id").notNull(),
    /** The target organisation, when one was resolved. */
    orgId: text("org_id"),
    method: text("method").notNull(),
    /** The route template (`/api/agent/contacts/{id}`), never the raw URL. */
    route: text("route").notNull(),
    status: integer("status").notNull(),
    /** True when the key held READ_SENSITIVE (in the target organisation, when one was resolved). */
    sensitive: boolean("sensitive").notNull(),
    /**
     * Why a key whose secret matched was refused anyway, e.g. `creator_not_partner_owner` (a
     * partner key whose creator no longer owns the partner: it answers 401 like a revoked key,
     * and the reason is kept here). Null otherwise.
     */
    reason: text("reason"),
    requestId: text("request_id").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
  },
  // Read by key only (the settings screen's audit trail of a key, newest first). No index by
  // organisation: nothing reads the rows that way, and every agent request would pay for it
  // (drizzle/0019_audit_without_org_index.sql).
  (t) => [index("audit_events_key_at_idx").on(t.keyId, t.at)],
);

/**
 * Epochs of what a verified-key cache holds: triggers add one to the row of the key or
 * organisation that changed (`id` = hashtext('key:<id>' | 'org:<id>')) whenever a key is revoked,
 * rotated, rescoped or deleted, or the fields of an organisation read with its keys change
 * (drizzle/0011_auth_epoch_triggers.sql). So every writer (the server, the CLI, another instance) invalidates
 * every instance's cache, which polls the sum of the rows (src/services/keys/verified-key-cache.ts);
 * a row per scope means a long transaction that bumps one (an import renaming its organisation)
 * holds no other scope's bump.
 */
export const authEpoch = pgTable("auth_epoch", {
  id: integer("id").primaryKey(),
  epoch: bigint("epoch", { mode: "number" }).notNull().default(0),
});
