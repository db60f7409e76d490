import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { addDays } from "../../domain/forecasting/dates.ts";
import type {
  AccountInfo,
  CustomerInfo,
  ForecastInput,
  OpenItem,
  OpenPurchaseOrder,
  RecurringHistoryEntry,
  SalesHistoryEntry,
} from "../../domain/forecasting/types.ts";
import { localDate } from "../../domain/timezones.ts";
import { computeStartingCash, type StartingCash } from "../cash-position/starting-cash.ts";

/** Days of history read for cadences (two years and a bit: a yearly charge shows twice). */
export const HISTORY_DAYS = 800;

/** The organisation fields the forecast needs. */
export interface ForecastOrg {
  id: string;
  baseCurrency: string;
  timezone: string;
}

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** The chart of accounts as `code → service id` (the first account of a code) and infos. */
async function loadAccounts(db: DbOrTx, orgId: string) {
  const list = rows<{ id: string; code: string | null; name: string; excluded: boolean }>(
    await db.execute(sql`
      SELECT id, code, name, (include_in_burn IS FALSE) AS excluded
      FROM ledger_accounts WHERE org_id = ${orgId}
      ORDER BY code COLLATE "C" NULLS LAST, id COLLATE "C"`),
  );
  const byCode = new Map<string, string>();
  for (const a of list) if (a.code && !byCode.has(a.code)) byCode.set(a.code, a.id);
  const infos: AccountInfo[] = list.map((a) => ({ id: a.id, name: a.name }));
  // Accounts the owner took out of burn (Settings → Account categories).
  const excluded = new Set(list.filter((a) => a.excluded).map((a) => a.id));
  return { byCode, infos, excluded };
}

/**
 * Everything the engine reads for one organisation, as the projection holds it now: open
 * receivables and bills, manual and pipeline items, open purchase orders, sales and payment
 * history, customers, accounts and the starting cash. One read per collection; the scenario is
 * filled in by the caller.
 */
export async function loadForecastInput(
  db: DbOrTx,
  org: ForecastOrg,
  now: Date,
): Promise<{ input: Omit<ForecastInput, "scenario">; cash: StartingCash }> {
  const orgId = org.id;
  const today = localDate(now, org.timezone);
  const since = addDays(today, -HISTORY_DAYS);
  const cash = await computeStartingCash(db, org, now);
  const { byCode, infos, excluded } = await loadAccounts(db, orgId);
  const account = (code: string | null) => (code ? (byCode.get(code) ?? null) : null);

  const openItems: OpenItem[] = rows<{
    id: string;
    source: OpenItem["source"];
    ledgerStatus: string | null;
    amount: string;
    currency: string;
    currencyRate: string | null;
    expectedDate: string;
    dueDate: string | null;
    issueDate: string | null;
    contactId: string | null;
    category: string | null;
    probability: string | null;
  }>(
    await db.execute(sql`
      SELECT id, source, ledger_status AS "ledgerStatus",
             (CASE WHEN source IN ('LEDGER_INVOICE', 'LEDGER_BILL') THEN amount_due ELSE amount END)::text AS amount,
             currency, currency_rate::text AS "currencyRate", expected_date::text AS "expectedDate",
             due_date::text AS "dueDate", issue_date::text AS "issueDate",
             contact_external_id AS "contactId", category, probability::text AS probability
      FROM cash_items
      WHERE org_id = ${orgId}
        AND ((source IN ('LEDGER_INVOICE', 'LEDGER_BILL') AND ledger_status IN ('AUTHORISED', 'SUBMITTED')
              AND amount_due > 0)
          OR (source IN ('MANUAL', 'PIPELINE') AND status = 'FORECAST'))
      ORDER BY id COLLATE "C"`),
  ).map((r) => ({ ...r, accountId: account(r.category) }));

  const purchaseOrders: OpenPurchaseOrder[] = rows<
    Omit<OpenPurchaseOrder, "accountId"> & { accountCode: string | null }
  >(
    await db.execute(sql`
      SELECT po.id, po.status, po.total::text AS total, po.currency, po.currency_rate::text AS "currencyRate",
             po.issue_date::text AS "issueDate", po.delivery_date::text AS "deliveryDate",
             po.expected_arrival_date::text AS "expectedArrivalDate",
             po.contact_external_id AS "contactId", po.suppressed_reason AS "suppressedReason",
             (SELECT l.account_code FROM purchase_order_lines l
               WHERE l.org_id = po.org_id AND l.purchase_order_id = po.id AND l.account_code IS NOT NULL
               ORDER BY abs(COALESCE(l.line_amount, 0)) DESC, l.line_number LIMIT 1) AS "accountCode"
      FROM purchase_orders po
      WHERE po.org_id = ${orgId} AND po.status IN ('AUTHORISED', 'SUBMITTED') AND po.suppressed_reason IS NULL
      ORDER BY po.id COLLATE "C"`),
  ).map(({ accountCode, ...po }) => ({ ...po, accountId: account(accountCode) }));

  const salesHistory: SalesHistoryEntry[] = rows<
    Omit<SalesHistoryEntry, "accountId"> & { category: string | null }
  >(
    await db.execute(sql`
      SELECT contact_external_id AS "contactId", issue_date::text AS "issueDate", amount::text AS total,
             currency, currency_rate::text AS "currencyRate", due_date::text AS "dueDate",
             CASE WHEN ledger_status = 'PAID' THEN actual_date::text END AS "paidDate", category
      FROM cash_items
      WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE'
        AND ledger_status IN ('AUTHORISED', 'SUBMITTED', 'PAID')
        AND contact_external_id IS NOT NULL AND issue_date IS NOT NULL
        AND issue_date >= ${since}::date AND issue_date <= ${today}::date
      ORDER BY contact_external_id COLLATE "C", issue_date, id COLLATE "C"`),
  ).map(({ category, ...e }) => ({ ...e, accountId: account(category) }));

  const included = cash.accounts.filter((a) => a.included).map((a) => a.externalId);
  const bills = rows<{
    contactId: string | null;
    contactName: string | null;
    category: string | null;
    date: string;
    dueDate: string | null;
    amount: string;
    currency: string;
    currencyRate: string | null;
  }>(
    await db.execute(sql`
      SELECT contact_external_id AS "contactId", contact_name AS "contactName", category,
             issue_date::text AS date, expected_date::text AS "dueDate", amount::text AS amount,
             currency, currency_rate::text AS "currencyRate"
      FROM cash_items
      WHERE org_id = ${orgId} AND source = 'LEDGER_BILL'
        AND ledger_status IN ('AUTHORISED', 'SUBMITTED', 'PAID') AND issue_date IS NOT NULL
        AND issue_date >= ${since}::date AND issue_date <= ${today}::date
      ORDER BY id COLLATE "C"`),
  );
  const bankLines =
    included.length === 0
      ? []
      : rows<{
          type: string;
          contactId: string | null;
          contactName: string | null;
          category: string | null;
          date: string;
          amount: string;
          currency: string;
        }>(
          await db.execute(sql`
            SELECT type, contact_external_id AS "contactId", contact_name AS "contactName",
                   account_code AS category, date::text AS date, total::text AS amount, currency
            FROM bank_transactions
            WHERE org_id = ${orgId} AND status = 'AUTHORISED' AND type IN ('SPEND', 'RECEIVE')
              AND bank_account_external_id IN (${sql.join(
                included.map((e) => sql`${e}`),
                sql`, `,
              )})
              AND date >= ${since}::date AND date <= ${today}::date
            ORDER BY id COLLATE "C"`),
        );
  // The owner's exclusions filter the history at the input: an account taken out of burn
  // produces no recurring run rate (open documents, which are owed, still count).
  const recurringHistory: RecurringHistoryEntry[] = [
    ...bills.map(
      (b): RecurringHistoryEntry => ({
        kind: "bill",
        contactId: b.contactId,
        contactName: b.contactName,
        accountId: account(b.category),
        date: b.date,
        dueDate: b.dueDate,
        amount: b.amount,
        currency: b.currency,
        currencyRate: b.currencyRate,
      }),
    ),
    ...bankLines.map(
      (t): RecurringHistoryEntry => ({
        kind: t.type === "RECEIVE" ? "receive" : "spend",
        contactId: t.contactId,
        contactName: t.contactName,
        accountId: account(t.category),
        date: t.date,
        dueDate: null,
        amount: t.amount,
        currency: t.currency,
        currencyRate: null,
      }),
    ),
  ].filter((h) => h.accountId === null || !excluded.has(h.accountId));

  const customers: CustomerInfo[] = rows<{ contactId: string; name: string; active: boolean }>(
    await db.execute(sql`
      SELECT external_id AS "contactId", name, (contact_status = 'ACTIVE') AS active
      FROM contacts WHERE org_id = ${orgId} AND is_customer
      ORDER BY external_id COLLATE "C"`),
  );

  return {
    input: {
      now,
      timezone: org.timezone,
      baseCurrency: org.baseCurrency,
      startingCash: cash.effectiveStartingCash,
      openItems,
      purchaseOrders,
      salesHistory,
      recurringHistory,
      customers,
      accounts: infos,
    },
    cash,
  };
}
