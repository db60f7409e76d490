import { sql } from "drizzle-orm";
import type { LedgerSource } from "../../connector/ledger-source.ts";
import type { DbOrTx } from "../../db/client.ts";
import { accountBalances } from "../../db/schema/index.ts";
import { randomToken } from "../../domain/ids.ts";
import { canonical } from "../../domain/money.ts";
import { deleteWhereIn, insertRows, rowsOf } from "../sync/write-projection.ts";
import { type BalanceSheetRow, balanceSheetRows } from "./map-balance-sheet.ts";

/**
 * Writes the ledger's balance sheets into `account_balances`, inside the import's transaction,
 * as a full snapshot: rows the export no longer has are removed, changed ones replaced, the
 * same ones left alone (so a re-import writes nothing). A source without balance sheets (or an
 * export without the optional file) leaves none.
 * @returns rows read and rows written (inserted, replaced or removed).
 */
export async function writeBalanceSheets(
  tx: DbOrTx,
  orgId: string,
  source: LedgerSource,
): Promise<{ read: number; written: number }> {
  const rows = balanceSheetRows(source.balanceSheets ? await source.balanceSheets() : []);
  const existing = new Map<
    string,
    { id: string; name: string; section: string | null; balance: string }
  >();
  for (const r of rowsOf<{
    id: string;
    asAtDate: string;
    ext: string;
    name: string;
    section: string | null;
    balance: string;
  }>(
    await tx.execute(sql`
      SELECT id, as_at_date::text AS "asAtDate", account_external_id AS ext, name, section,
             balance::text AS balance
      FROM account_balances WHERE org_id = ${orgId}`),
  )) {
    existing.set(`${r.asAtDate}|${r.ext}`, r);
  }
  const insert: (BalanceSheetRow & { id: string; orgId: string })[] = [];
  const remove: string[] = [];
  let replaced = 0;
  for (const row of rows) {
    const key = `${row.asAtDate}|${row.accountExternalId}`;
    const before = existing.get(key);
    existing.delete(key);
    const balance = canonical(row.balance);
    if (
      before &&
      before.name === row.name &&
      before.section === row.section &&
      canonical(before.balance) === balance
    ) {
      continue;
    }
    if (before) {
      remove.push(before.id);
      replaced += 1;
    }
    insert.push({ ...row, balance, id: `abl_${randomToken()}`, orgId });
  }
  for (const gone of existing.values()) remove.push(gone.id);
  await deleteWhereIn(tx, accountBalances, orgId, "id", remove);
  await insertRows(
    tx,
    accountBalances,
    ["id", "orgId", "asAtDate", "accountExternalId", "name", "section", "balance"],
    insert,
  );
  // A replaced row is one write, not a removal plus an insertion.
  return { read: rows.length, written: insert.length + remove.length - replaced };
}
