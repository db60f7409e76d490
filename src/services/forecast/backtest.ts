import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { organisations } from "../../db/schema/index.ts";
import {
  type BacktestData,
  type BacktestResult,
  type DocumentHistory,
  runBacktest,
} from "../../domain/forecasting/backtest.ts";
import type { RecurringHistoryEntry } from "../../domain/forecasting/types.ts";
import { localDate } from "../../domain/timezones.ts";
import { computeStartingCash, INFLOW_PAYMENT_TYPES } from "../cash-position/starting-cash.ts";
import { NotFoundError } from "../errors.ts";

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * Loads an organisation's whole history for a backtest: every invoice and bill with its payments
 * and credit allocations, the movements of the included bank accounts (payments and bank lines,
 * the same accounts the cash position sums), and the spend/receive lines.
 */
export async function loadBacktestData(db: Db, orgId: string, now: Date): Promise<BacktestData> {
  const [org] = await db
    .select({
      id: organisations.id,
      baseCurrency: organisations.baseCurrency,
      timezone: organisations.timezone,
    })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!org) throw new NotFoundError("organisation");
  const cash = await computeStartingCash(db, org, now);
  const included = cash.accounts.filter((a) => a.included).map((a) => a.externalId);
  const accountRows = rows<{ id: string; code: string | null; name: string }>(
    await db.execute(sql`SELECT id, code, name FROM ledger_accounts WHERE org_id = ${orgId}
      ORDER BY code COLLATE "C" NULLS LAST, id COLLATE "C"`),
  );
  const byCode = new Map<string, string>();
  for (const a of accountRows) if (a.code && !byCode.has(a.code)) byCode.set(a.code, a.id);
  const account = (code: string | null) => (code ? (byCode.get(code) ?? null) : null);

  const docs = rows<{
    id: string;
    externalId: string;
    source: string;
    status: string;
    contactId: string | null;
    contactName: string | null;
    category: string | null;
    issueDate: string | null;
    dueDate: string | null;
    total: string;
    currency: string;
    currencyRate: string | null;
    updatedAt: Date | string | null;
  }>(
    await db.execute(sql`
      SELECT id, external_id AS "externalId", source, ledger_status AS status,
             contact_external_id AS "contactId", contact_name AS "contactName", category,
             issue_date::text AS "issueDate", due_date::text AS "dueDate", amount::text AS total,
             currency, currency_rate::text AS "currencyRate", ledger_updated_at AS "updatedAt"
      FROM cash_items
      WHERE org_id = ${orgId} AND source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
      ORDER BY id COLLATE "C"`),
  );
  const paid = new Map<string, { date: string; amount: string }[]>();
  for (const p of rows<{ doc: string; date: string; amount: string }>(
    await db.execute(sql`
      SELECT invoice_external_id AS doc, date::text AS date, amount::text AS amount
      FROM payments WHERE org_id = ${orgId} AND invoice_external_id IS NOT NULL AND status <> 'DELETED'`),
  )) {
    paid.set(p.doc, [...(paid.get(p.doc) ?? []), { date: p.date, amount: p.amount }]);
  }
  const credited = new Map<string, { date: string; amount: string }[]>();
  for (const c of rows<{ doc: string; date: string; amount: string }>(
    await db.execute(sql`
      SELECT a.invoice_external_id AS doc, COALESCE(a.date, cn.issue_date)::text AS date, a.amount::text AS amount
      FROM credit_note_allocations a
      JOIN credit_notes cn ON cn.org_id = a.org_id AND cn.id = a.credit_note_id
      WHERE a.org_id = ${orgId} AND a.invoice_external_id IS NOT NULL
        AND cn.ledger_status IN ('AUTHORISED', 'PAID') AND COALESCE(a.date, cn.issue_date) IS NOT NULL`),
  )) {
    credited.set(c.doc, [...(credited.get(c.doc) ?? []), { date: c.date, amount: c.amount }]);
  }
  const documents: DocumentHistory[] = [];
  for (const d of docs) {
    if (!d.issueDate) continue;
    const updated =
      d.updatedAt === null
        ? null
        : d.updatedAt instanceof Date
          ? d.updatedAt
          : new Date(d.updatedAt);
    documents.push({
      id: d.id,
      type: d.source === "LEDGER_INVOICE" ? "ACCREC" : "ACCPAY",
      status: d.status,
      contactId: d.contactId,
      contactName: d.contactName,
      accountId: account(d.category),
      issueDate: d.issueDate,
      dueDate: d.dueDate,
      total: d.total,
      currency: d.currency,
      currencyRate: d.currencyRate,
      // A voided document's last update is when it was voided (the ledger keeps no void date).
      voidedOn: d.status === "VOIDED" && updated ? localDate(updated, org.timezone) : null,
      payments: paid.get(d.externalId) ?? [],
      credits: credited.get(d.externalId) ?? [],
    });
  }

  const movements: BacktestData["movements"] = [];
  const bankHistory: RecurringHistoryEntry[] = [];
  if (included.length > 0) {
    const list = sql.join(
      included.map((e) => sql`${e}`),
      sql`, `,
    );
    const inflow = sql.join(
      INFLOW_PAYMENT_TYPES.map((t) => sql`${t}`),
      sql`, `,
    );
    for (const m of rows<{ date: string; amount: string }>(
      await db.execute(sql`
        SELECT p.date::text AS date,
               (CASE WHEN p.payment_type IN (${inflow}) OR (p.payment_type IS NULL AND ci.source = 'LEDGER_INVOICE')
                     THEN COALESCE(p.bank_amount, p.amount) ELSE -COALESCE(p.bank_amount, p.amount) END)::text AS amount
        FROM payments p
        LEFT JOIN cash_items ci ON p.payment_type IS NULL AND ci.org_id = p.org_id AND ci.external_id = p.invoice_external_id
        WHERE p.org_id = ${orgId} AND p.status <> 'DELETED' AND p.bank_account_external_id IN (${list})
        UNION ALL
        SELECT date::text, (CASE WHEN type LIKE 'RECEIVE%' THEN total ELSE -total END)::text
        FROM bank_transactions
        WHERE org_id = ${orgId} AND status = 'AUTHORISED' AND bank_account_external_id IN (${list})`),
    )) {
      movements.push(m);
    }
    for (const t of rows<{
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
          AND bank_account_external_id IN (${list})
        ORDER BY id COLLATE "C"`),
    )) {
      bankHistory.push({
        kind: t.type === "RECEIVE" ? "receive" : "spend",
        contactId: t.contactId,
        contactName: t.contactName,
        accountId: account(t.category),
        date: t.date,
        dueDate: null,
        amount: t.amount,
        currency: t.currency,
        currencyRate: null,
      });
    }
  }
  const customers = rows<{ contactId: string; name: string; active: boolean }>(
    await db.execute(sql`
      SELECT external_id AS "contactId", name, (contact_status = 'ACTIVE') AS active
      FROM contacts WHERE org_id = ${orgId} AND is_customer ORDER BY external_id COLLATE "C"`),
  );
  return {
    timezone: org.timezone,
    baseCurrency: org.baseCurrency,
    today: cash.asOfDate,
    currentCash: cash.ledgerReconciledTotal,
    movements,
    documents,
    bankHistory,
    customers,
    accounts: accountRows.map((a) => ({ id: a.id, name: a.name })),
  };
}

/** `cashrunway backtest`: loads the history and replays the last `weeks` weeks. */
export async function backtestOrganisation(
  db: Db,
  input: { orgId: string; now: Date; weeks: number },
): Promise<BacktestResult> {
  const data = await loadBacktestData(db, input.orgId, input.now);
  return runBacktest(data, { weeks: input.weeks });
}
