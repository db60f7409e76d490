import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { afterDataEpoch } from "../../db/queries/data-epochs.ts";
import { ledgerAccounts, PNL_POSITIONS, type PnlPosition } from "../../db/schema/index.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";
import { ACCOUNT_ORDER, accountSearch, countAccounts } from "../sensitivity/account-search.ts";
import { rowsOf } from "../summaries/summary-cache.ts";

/*
 * Account categories (Settings → Account categories, gap facts §2.4): per ledger account, its
 * burn/revenue inclusion and its P&L position, each defaulting from the ledger (class, type)
 * until the owner sets it, and its sensitive flag (set through the sensitivity service).
 */

/** Ledger types that sit in each P&L position by default; every other type is Off-P&L. */
const TYPE_POSITION: Record<string, PnlPosition> = {
  REVENUE: "REVENUE",
  SALES: "REVENUE",
  OTHERINCOME: "REVENUE",
  DIRECTCOSTS: "COGS",
  EXPENSE: "OPEX",
  OVERHEADS: "OPEX",
  DEPRECIATN: "OPEX",
};

/** The default P&L position of a ledger account type. */
export function defaultPnlPosition(type: string): PnlPosition {
  return TYPE_POSITION[type.toUpperCase()] ?? "OFF_PNL";
}

/**
 * The default burn/revenue inclusion of a ledger account: income and expense classes count,
 * balance-sheet classes (assets, liabilities, equity) do not; depreciation is an expense that
 * moves no cash, so it does not count either.
 */
export function defaultInclusion(accountClass: string | null, type: string): boolean {
  const c = (accountClass ?? "").toUpperCase();
  return (c === "REVENUE" || c === "EXPENSE") && type.toUpperCase() !== "DEPRECIATN";
}

export const PNL_LABELS: Record<PnlPosition, string> = {
  REVENUE: "Revenue",
  COGS: "COGS",
  OPEX: "OpEx",
  OFF_PNL: "Off-P&L",
};

/** An account with its three controls, effective values and whether each is the default. */
export interface AccountCategory {
  id: string;
  code: string | null;
  name: string;
  type: string;
  class: string | null;
  status: string;
  included: boolean;
  includedIsDefault: boolean;
  position: PnlPosition;
  positionIsDefault: boolean;
  isSensitive: boolean;
}

/**
 * One page of the organisation's ledger accounts by code (accounts without one last), then name;
 * `q` matches a fragment of the name or the code, case-insensitively. `total` counts every match.
 */
export async function listAccountCategories(
  db: DbOrTx,
  orgId: string,
  opts: { q?: string | undefined; offset: number; limit: number },
): Promise<{ rows: AccountCategory[]; total: number }> {
  const where = accountSearch(orgId, opts.q);
  const list = await db
    .select({
      id: ledgerAccounts.id,
      code: ledgerAccounts.code,
      name: ledgerAccounts.name,
      type: ledgerAccounts.type,
      class: ledgerAccounts.class,
      status: ledgerAccounts.status,
      includeInBurn: ledgerAccounts.includeInBurn,
      pnlPosition: ledgerAccounts.pnlPosition,
      isSensitive: ledgerAccounts.isSensitive,
    })
    .from(ledgerAccounts)
    .where(where)
    .orderBy(...ACCOUNT_ORDER)
    .offset(opts.offset)
    .limit(opts.limit);
  const total = await countAccounts(db, where);
  return {
    rows: list.map((a) => ({
      id: a.id,
      code: a.code,
      name: a.name,
      type: a.type,
      class: a.class,
      status: a.status,
      included: a.includeInBurn ?? defaultInclusion(a.class, a.type),
      includedIsDefault: a.includeInBurn === null,
      position: a.pnlPosition ?? defaultPnlPosition(a.type),
      positionIsDefault: a.pnlPosition === null,
      isSensitive: a.isSensitive,
    })),
    total,
  };
}

/**
 * Sets an account's inclusion and/or P&L position (`"default"` returns a control to the
 * ledger's default), scoped to the organisation: another organisation's account is not found.
 * @throws NotFoundError, InvalidParameterError an unknown position.
 */
export async function setAccountCategory(
  db: DbOrTx,
  input: {
    orgId: string;
    accountId: string;
    included?: boolean | "default" | undefined;
    position?: string | undefined;
  },
): Promise<void> {
  const set: { includeInBurn?: boolean | null; pnlPosition?: PnlPosition | null } = {};
  if (input.included !== undefined) {
    set.includeInBurn = input.included === "default" ? null : input.included;
  }
  if (input.position !== undefined) {
    if (input.position === "default") set.pnlPosition = null;
    else if ((PNL_POSITIONS as readonly string[]).includes(input.position)) {
      set.pnlPosition = input.position as PnlPosition;
    } else {
      throw new InvalidParameterError(
        "position",
        `position must be one of ${PNL_POSITIONS.join(", ")} or default`,
      );
    }
  }
  if (Object.keys(set).length === 0) {
    throw new InvalidParameterError("category", "nothing to change");
  }
  const updated = await afterDataEpoch(db, input.orgId, (tx) =>
    tx
      .update(ledgerAccounts)
      .set(set)
      .where(and(eq(ledgerAccounts.orgId, input.orgId), eq(ledgerAccounts.id, input.accountId)))
      .returning({ id: ledgerAccounts.id }),
  );
  if (updated.length === 0) throw new NotFoundError("account");
}

/**
 * A fingerprint of the owner's category choices, for caches of figures that use them (the
 * revenue summary's gross profit): it changes whenever a choice does.
 */
export async function categoriesVersion(db: DbOrTx, orgId: string): Promise<string> {
  const row = rowsOf<{ v: string | null }>(
    await db.execute(sql`
      SELECT md5(string_agg(id || ':' || coalesce(include_in_burn::text, '') || ':' ||
                            coalesce(pnl_position, ''), ',' ORDER BY id)) AS v
      FROM ledger_accounts
      WHERE org_id = ${orgId} AND (include_in_burn IS NOT NULL OR pnl_position IS NOT NULL)`),
  )[0];
  return row?.v ?? "none";
}

/** Ids of the accounts the owner took out of burn and revenue (an explicit choice, not a default). */
export async function accountsExcludedFromBurn(db: DbOrTx, orgId: string): Promise<Set<string>> {
  const rows = await db
    .select({ id: ledgerAccounts.id })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.orgId, orgId), eq(ledgerAccounts.includeInBurn, false)));
  return new Set(rows.map((r) => r.id));
}
