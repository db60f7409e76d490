import { and, asc, eq, ilike, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { contacts, ledgerAccounts } from "../../db/schema/index.ts";
import { ACCOUNT_ORDER, accountSearch, countAccounts, likePattern } from "./account-search.ts";

/** A ledger account with its sensitive flag. */
export interface AccountFlagRow {
  id: string;
  code: string | null;
  name: string;
  type: string;
  class: string | null;
  status: string;
  isSensitive: boolean;
}

/** A contact with its sensitive flag. */
export interface ContactFlagRow {
  id: string;
  name: string;
  isCustomer: boolean;
  isSupplier: boolean;
  contactStatus: string;
  isSensitive: boolean;
}

/**
 * One page of the organisation's ledger accounts, by code (accounts without a code last), then
 * name; `q` filters by a case-insensitive fragment of the name or the code. `total` counts every
 * match.
 */
export async function listAccountFlags(
  db: DbOrTx,
  orgId: string,
  opts: { q?: string | undefined; offset: number; limit: number },
): Promise<{ rows: AccountFlagRow[]; total: number }> {
  const where = accountSearch(orgId, opts.q);
  const rows = await db
    .select({
      id: ledgerAccounts.id,
      code: ledgerAccounts.code,
      name: ledgerAccounts.name,
      type: ledgerAccounts.type,
      class: ledgerAccounts.class,
      status: ledgerAccounts.status,
      isSensitive: ledgerAccounts.isSensitive,
    })
    .from(ledgerAccounts)
    .where(where)
    .orderBy(...ACCOUNT_ORDER)
    .offset(opts.offset)
    .limit(opts.limit);
  const total = await countAccounts(db, where);
  return { rows, total };
}

/**
 * One page of the organisation's contacts, flagged ones first, then by name; `q` filters by a
 * case-insensitive name fragment. `total` counts every match.
 */
export async function listContactFlags(
  db: DbOrTx,
  orgId: string,
  opts: { q?: string | undefined; offset: number; limit: number },
): Promise<{ rows: ContactFlagRow[]; total: number }> {
  const q = opts.q?.trim();
  const where = and(
    eq(contacts.orgId, orgId),
    q ? ilike(contacts.name, likePattern(q)) : undefined,
  );
  const rows = await db
    .select({
      id: contacts.id,
      name: contacts.name,
      isCustomer: contacts.isCustomer,
      isSupplier: contacts.isSupplier,
      contactStatus: contacts.contactStatus,
      isSensitive: contacts.isSensitive,
    })
    .from(contacts)
    .where(where)
    .orderBy(sql`${contacts.isSensitive} desc`, sql`${contacts.name} collate "C"`, asc(contacts.id))
    .offset(opts.offset)
    .limit(opts.limit);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(contacts).where(where);
  return { rows, total: count?.n ?? 0 };
}

/** An account's or contact's name and current flag, in this organisation; null when not found. */
export async function flagTarget(
  db: DbOrTx,
  orgId: string,
  kind: "account" | "contact",
  id: string,
): Promise<{ name: string; isSensitive: boolean } | null> {
  const table = kind === "account" ? ledgerAccounts : contacts;
  const [row] = await db
    .select({ name: table.name, isSensitive: table.isSensitive })
    .from(table)
    .where(and(eq(table.orgId, orgId), eq(table.id, id)));
  return row ?? null;
}
