import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import type { KeyKind, KeyReach, Role } from "../schema/index.ts";
import { apiKeyOrgRevocations, memberships, organisations, partnerLinks } from "../schema/index.ts";
import { UNNAMED_STATEMENT } from "./prepared.ts";

/** The organisation columns the request pipeline and services need. */
export interface ReachableOrgRow {
  id: string;
  name: string;
  baseCurrency: string;
  timezone: string;
  financialYearEndMonth: number;
  financialYearEndDay: number;
  billingAccountId: string | null;
}

/**
 * A reachable organisation with what decides whether READ_SENSITIVE applies there for the key
 * (`sensitiveApplies` in domain/key-governance.ts).
 */
export interface ReachedOrgRow extends ReachableOrgRow {
  /** The organisation's `restrict_sensitive_to_org_keys` setting. */
  restrictSensitiveToOrgKeys: boolean;
  /** USER keys: the creator's role there (the membership that gives the reach); else null. */
  creatorRole: Role | null;
}

/** What decides a key's reach; a subset of the key row. */
export interface ReachKey {
  /** The key's id: revocations for single organisations (`api_key_org_revocations`) apply. */
  id: string;
  kind: KeyKind;
  reach: KeyReach;
  orgId: string | null;
  partnerId: string | null;
  createdByUserId: string;
  pinnedOrgIds: readonly string[] | null;
}

const columns = {
  id: organisations.id,
  name: organisations.name,
  baseCurrency: organisations.baseCurrency,
  timezone: organisations.timezone,
  financialYearEndMonth: organisations.financialYearEndMonth,
  financialYearEndDay: organisations.financialYearEndDay,
  billingAccountId: organisations.billingAccountId,
  restrictSensitiveToOrgKeys: organisations.restrictSensitiveToOrgKeys,
};

/**
 * Name order in byte order (`COLLATE "C"`), then id: the same order on every server whatever its
 * default collation, so PGlite and PostgreSQL agree.
 */
const byName = [sql`${organisations.name} collate "C"`, sql`${organisations.id} collate "C"`];

const p = {
  key: sql.placeholder("key"),
  owner: sql.placeholder("owner"),
  only: sql.placeholder("only"),
  allLinked: sql.placeholder("allLinked"),
  pinned: sql.placeholder("pinned"),
  /** `LIMIT NULL` is no limit in PostgreSQL. */
  limit: sql.placeholder("limit"),
};

/**
 * One prepared query per (key kind, with or without a single organisation): six in all, built
 * once per client. Separate queries (rather than `$only is null or id = $only`) keep the
 * primary-key lookup plannable.
 */
function reachQueries(db: DbOrTx) {
  const onlyClause = eq(organisations.id, p.only);
  // Not revoked for this organisation by its owner (primary-key lookup per organisation).
  const notRevokedHere = sql`not exists (select 1 from ${apiKeyOrgRevocations} r where r.key_id = ${p.key} and r.org_id = ${organisations.id})`;
  const org = (only: boolean) =>
    db
      .select({ ...columns, creatorRole: sql<Role | null>`null` })
      .from(organisations)
      .where(only ? and(eq(organisations.id, p.owner), onlyClause) : eq(organisations.id, p.owner))
      .orderBy(...byName)
      .limit(p.limit)
      .prepare(UNNAMED_STATEMENT);
  const user = (only: boolean) =>
    db
      .select({ ...columns, creatorRole: memberships.role })
      .from(organisations)
      .innerJoin(
        memberships,
        and(eq(memberships.orgId, organisations.id), eq(memberships.userId, p.owner)),
      )
      .where(and(only ? onlyClause : undefined, notRevokedHere))
      .orderBy(...byName)
      .limit(p.limit)
      .prepare(UNNAMED_STATEMENT);
  const partner = (only: boolean) =>
    db
      .select({ ...columns, creatorRole: sql<Role | null>`null` })
      .from(organisations)
      .innerJoin(
        partnerLinks,
        and(eq(partnerLinks.orgId, organisations.id), eq(partnerLinks.partnerId, p.owner)),
      )
      .where(
        and(
          only ? onlyClause : undefined,
          // PINNED: the pinned set intersected with the live links; `= any(NULL)` matches nothing.
          sql`(${p.allLinked}::boolean or ${organisations.id} = any(${p.pinned}::text[]))`,
          notRevokedHere,
        ),
      )
      .orderBy(...byName)
      .limit(p.limit)
      .prepare(UNNAMED_STATEMENT);
  return {
    ORG: { all: org(false), only: org(true) },
    USER: { all: user(false), only: user(true) },
    PARTNER: { all: partner(false), only: partner(true) },
  };
}

/** Prepared once per client: reach is evaluated on every agent request. */
const prepared = new WeakMap<DbOrTx, ReturnType<typeof reachQueries>>();

/**
 * The organisations a key reaches now, sorted by name then id; one query, evaluated live on every
 * call so that a new membership or partner link, or their removal, applies to the next request:
 *
 * - ORG (`OWN_ORG`): its own organisation;
 * - USER (`USER_MEMBERSHIPS`): organisations the key's creator is currently a member of;
 * - PARTNER `ALL_LINKED`: organisations currently linked to the partner;
 * - PARTNER `PINNED`: the pinned set intersected with the current links (a later link never
 *   extends it; an unlinked organisation drops out);
 * - USER and PARTNER keys never reach an organisation whose owner revoked them there.
 *
 * Each row carries what decides whether READ_SENSITIVE applies there for this key.
 * `onlyOrgId` narrows the answer to that organisation (empty when outside the reach); `limit`
 * caps the rows (the pipeline asks for 2 to learn whether the reach is exactly one).
 */
export async function listReachableOrgRows(
  db: DbOrTx,
  key: ReachKey,
  opts: { onlyOrgId?: string; limit?: number } = {},
): Promise<ReachedOrgRow[]> {
  let queries = prepared.get(db);
  if (!queries) {
    queries = reachQueries(db);
    prepared.set(db, queries);
  }
  const form = opts.onlyOrgId === undefined ? "all" : "only";
  const limit = opts.limit ?? null;
  const only = opts.onlyOrgId ?? null;
  if (key.kind === "ORG") {
    if (!key.orgId) return [];
    return queries.ORG[form].execute({ owner: key.orgId, only, limit });
  }
  if (key.kind === "USER") {
    return queries.USER[form].execute({ key: key.id, owner: key.createdByUserId, only, limit });
  }
  // Fail closed: a partner key without a partner, or with a reach it should not have, reads nothing.
  if (!key.partnerId || (key.reach !== "ALL_LINKED" && key.reach !== "PINNED")) return [];
  return queries.PARTNER[form].execute({
    key: key.id,
    owner: key.partnerId,
    only,
    limit,
    allLinked: key.reach === "ALL_LINKED",
    // An empty pin set reaches nothing, never "everything".
    pinned: key.reach === "PINNED" ? [...(key.pinnedOrgIds ?? [])] : null,
  });
}
