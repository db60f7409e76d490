import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import { apiKeys, authEpoch, organisations, partnerOwners } from "../schema/index.ts";
import { UNNAMED_STATEMENT } from "./prepared.ts";
import type { ReachableOrgRow } from "./reach.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type NewApiKeyRow = typeof apiKeys.$inferInsert;

/**
 * The join of a partner key to its creator's ownership of the partner: a partner key works only
 * while the user who created it owns the partner (no row: the creator no longer owns it).
 */
export const CREATOR_OWNS_PARTNER = and(
  eq(partnerOwners.partnerId, apiKeys.partnerId),
  eq(partnerOwners.userId, apiKeys.createdByUserId),
);

function keyByPrefixQuery(db: DbOrTx) {
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.prefix, sql.placeholder("prefix")))
    .limit(1)
    .prepare(UNNAMED_STATEMENT);
}

/**
 * Built once per client: this lookup runs on every agent request, and reusing the prepared query
 * skips Drizzle's query building (figures: docs/benchmarks.md, "Optimisations in the code").
 */
const keyByPrefix = new WeakMap<DbOrTx, ReturnType<typeof keyByPrefixQuery>>();

/** The key with this display prefix, revoked or not (one indexed lookup: `api_keys_prefix_key`). */
export async function findApiKeyByPrefix(
  db: DbOrTx,
  prefix: string,
): Promise<ApiKeyRow | undefined> {
  let query = keyByPrefix.get(db);
  if (!query) {
    query = keyByPrefixQuery(db);
    keyByPrefix.set(db, query);
  }
  const rows = await query.execute({ prefix });
  return rows[0];
}

function keyForAuthQuery(db: DbOrTx) {
  return db
    .select({
      key: apiKeys,
      // Partner keys work only while their creator owns the partner (primary-key lookup).
      creatorOwnsPartner: sql<boolean>`${partnerOwners.userId} is not null`,
      ownOrg: {
        id: organisations.id,
        name: organisations.name,
        baseCurrency: organisations.baseCurrency,
        timezone: organisations.timezone,
        financialYearEndMonth: organisations.financialYearEndMonth,
        financialYearEndDay: organisations.financialYearEndDay,
        billingAccountId: organisations.billingAccountId,
      },
    })
    .from(apiKeys)
    .leftJoin(organisations, eq(organisations.id, apiKeys.orgId))
    .leftJoin(partnerOwners, CREATOR_OWNS_PARTNER)
    .where(eq(apiKeys.prefix, sql.placeholder("prefix")))
    .limit(1)
    .prepare(UNNAMED_STATEMENT);
}

const keyForAuth = new WeakMap<DbOrTx, ReturnType<typeof keyForAuthQuery>>();

/** What authentication reads of a key. */
export interface ApiKeyForAuth {
  key: ApiKeyRow;
  /** An organisation key's organisation (null for other kinds). */
  ownOrg: ReachableOrgRow | null;
  /** Whether the key's creator owns its partner now (false for keys without a partner). */
  creatorOwnsPartner: boolean;
}

/**
 * The key with this prefix and, for an organisation key, its organisation, in one indexed read:
 * the request pipeline then resolves an organisation key's target without a second round trip.
 * For a partner key, whether its creator still owns the partner comes with it.
 */
export async function findApiKeyForAuth(
  db: DbOrTx,
  prefix: string,
): Promise<ApiKeyForAuth | undefined> {
  let query = keyForAuth.get(db);
  if (!query) {
    query = keyForAuthQuery(db);
    keyForAuth.set(db, query);
  }
  const [row] = await query.execute({ prefix });
  return row;
}

/**
 * Inserts a key unless its prefix is taken; returns false on a prefix collision so the caller can
 * draw another prefix. (An id collision is impossible in practice and would throw.)
 */
export async function insertApiKey(db: DbOrTx, row: NewApiKeyRow): Promise<boolean> {
  const inserted = await db
    .insert(apiKeys)
    .values(row)
    .onConflictDoNothing({ target: apiKeys.prefix })
    .returning({ id: apiKeys.id });
  return inserted.length === 1;
}

/**
 * Marks an active key revoked; returns the row, or undefined when no active key has the prefix.
 * The `revoked_at is null` guard makes concurrent revocations and rotations safe.
 */
export async function markApiKeyRevoked(
  db: DbOrTx,
  prefix: string,
  at: Date,
  replacedByKeyId: string | null = null,
): Promise<ApiKeyRow | undefined> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: at, replacedByKeyId })
    .where(and(eq(apiKeys.prefix, prefix), isNull(apiKeys.revokedAt)))
    .returning();
  return rows[0];
}

/** Keys, oldest first; with `orgId`, the organisation keys of that organisation. */
export async function listApiKeyRows(
  db: DbOrTx,
  filter: { orgId?: string } = {},
): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(filter.orgId ? eq(apiKeys.orgId, filter.orgId) : undefined)
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** The current auth epoch: the sum of every scope's row (see `authEpoch`), 0 without rows. */
export async function readAuthEpoch(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ epoch: sql<string>`coalesce(sum(${authEpoch.epoch}), 0)::text` })
    .from(authEpoch);
  return Number(row?.epoch ?? 0);
}
