import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { DETECTOR_RULES } from "../../domain/insights/detectors.ts";
import type { InsightInput } from "../../domain/insights/engine.ts";
import { canonical, money } from "../../domain/money.ts";
import {
  addDays,
  addMonths,
  firstDayOf,
  mondayOf,
  monthOf,
} from "../../domain/summaries/calendar.ts";
import { toBase } from "../summaries/sql-parts.ts";
import { rowsOf } from "../summaries/summary-cache.ts";

/** Months of receipts read for seasonality: 12 to average and the year before. */
const SEASON_MONTHS = 25;

/**
 * Loads what the detectors read, for an organisation on its local date `today`. Receipts are
 * payments on sales invoices, spending is payments on bills plus spend-money lines (transfers
 * excluded), all gross in base currency and dated by the money-moved date. Weeks run Monday to
 * Sunday; the current (partial) week and month are left out of the series.
 */
export async function loadInsightInput(
  db: DbOrTx,
  org: { id: string; baseCurrency: string },
  today: string,
): Promise<InsightInput> {
  const orgId = org.id;
  const base = org.baseCurrency;
  const weekStart = mondayOf(today);
  const weeks = DETECTOR_RULES.trend.weeks;
  const seriesFrom = addDays(weekStart, -7 * weeks);
  const currentMonth = monthOf(today);
  const monthsFrom = firstDayOf(addMonths(currentMonth, -SEASON_MONTHS));
  const paymentBase = toBase(sql`p.amount`, {
    currency: sql`ci.currency`,
    baseCurrency: base,
    rates: [sql`p.currency_rate`, sql`ci.currency_rate`],
  });
  const txBase = toBase(sql`t.total`, { currency: sql`t.currency`, baseCurrency: base, rates: [] });

  // Weekly receipts and spending over the 12 full weeks, monthly receipts over 25 full months.
  const flows = rowsOf<{ kind: string; bucket: string; amount: string }>(
    await db.execute(sql`
      WITH pay AS (
        SELECT ci.source, p.date, ${paymentBase} AS amount
        FROM payments p
        JOIN cash_items ci ON ci.org_id = p.org_id AND ci.external_id = p.invoice_external_id
          AND ci.source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
        WHERE p.org_id = ${orgId} AND p.status <> 'DELETED'
          AND p.date >= ${monthsFrom} AND p.date < ${weekStart}
      ),
      spend AS (
        SELECT t.date, ${txBase} AS amount FROM bank_transactions t
        WHERE t.org_id = ${orgId} AND t.type LIKE 'SPEND%' AND t.type <> 'SPEND-TRANSFER'
          AND t.status NOT IN ('VOIDED', 'DELETED')
          AND t.date >= ${seriesFrom} AND t.date < ${weekStart}
      )
      SELECT 'wr' AS kind, to_char(date_trunc('week', date::timestamp), 'YYYY-MM-DD') AS bucket,
             round(sum(amount), 2)::text AS amount
      FROM pay WHERE source = 'LEDGER_INVOICE' AND date >= ${seriesFrom} GROUP BY 2
      UNION ALL
      SELECT 'ws', to_char(date_trunc('week', date::timestamp), 'YYYY-MM-DD'), round(sum(amount), 2)::text
      FROM (SELECT date, amount FROM pay WHERE source = 'LEDGER_BILL' AND date >= ${seriesFrom}
            UNION ALL SELECT date, amount FROM spend) s GROUP BY 2
      UNION ALL
      SELECT 'mr', to_char(date::timestamp, 'YYYY-MM'), round(sum(amount), 2)::text
      FROM pay WHERE source = 'LEDGER_INVOICE' AND date < ${firstDayOf(currentMonth)} GROUP BY 2`),
  );
  const weekly = (kind: string) => {
    const m = new Map(flows.filter((f) => f.kind === kind).map((f) => [f.bucket, f.amount]));
    return Array.from({ length: weeks }, (_, i) =>
      canonical(m.get(addDays(seriesFrom, 7 * i)) ?? "0"),
    );
  };
  const monthlyReceipts = new Map(
    flows.filter((f) => f.kind === "mr").map((f) => [f.bucket, f.amount] as const),
  );

  const first = rowsOf<{ first: string | null }>(
    await db.execute(sql`
      SELECT to_char(min(p.date)::timestamp, 'YYYY-MM') AS first
      FROM payments p
      JOIN cash_items ci ON ci.org_id = p.org_id AND ci.external_id = p.invoice_external_id
        AND ci.source = 'LEDGER_INVOICE'
      WHERE p.org_id = ${orgId} AND p.status <> 'DELETED'`),
  )[0];

  // The next 4 weeks: the latest BASE forecast's weeks 1–4, else open receivables due.
  const forecast = rowsOf<{ inflow: string | null }>(
    await db.execute(sql`
      SELECT (SELECT sum((w ->> 'inflow')::numeric)::text
                FROM jsonb_array_elements(s.payload -> 'weeks') WITH ORDINALITY AS x(w, i)
                WHERE i <= 4) AS inflow
      FROM forecast_snapshots s
      JOIN forecast_scenarios sc ON sc.id = s.scenario_id AND sc.org_id = s.org_id
      WHERE s.org_id = ${orgId} AND sc.kind = 'BASE'
      ORDER BY s.computed_at DESC, s.id DESC LIMIT 1`),
  )[0];
  let next4wInflow: string | null = forecast?.inflow ?? null;
  if (next4wInflow === null) {
    const due = toBase(sql`coalesce(amount_due, amount)`, {
      currency: sql`currency`,
      baseCurrency: base,
      rates: [sql`currency_rate`],
    });
    const open = rowsOf<{ amount: string | null }>(
      await db.execute(sql`
        SELECT round(sum(CASE WHEN source = 'LEDGER_INVOICE' THEN ${due}
                              ELSE ${due} * coalesce(probability, 1) END), 2)::text AS amount
        FROM cash_items
        WHERE org_id = ${orgId} AND expected_date >= ${today} AND expected_date <= ${addDays(today, 27)}
          AND ((source = 'LEDGER_INVOICE' AND ledger_status = 'AUTHORISED')
            OR (source IN ('PIPELINE', 'PREDICTED') AND status = 'FORECAST' AND amount > 0))`),
    )[0];
    next4wInflow = open?.amount ?? "0";
  }
  const receiptsWeekly = weekly("wr");
  const last4wReceipts = canonical(receiptsWeekly.slice(-4).reduce((t, w) => t.plus(w), money(0)));

  const ar = await arShares(db, { orgId, base, today });

  // Concentration: customer receipts over the last 90 days, by contact.
  const concFrom = addDays(today, -(DETECTOR_RULES.concentration.days - 1));
  const conc = rowsOf<{
    contact: string | null;
    amount: string;
    total: string;
    name: string | null;
  }>(
    await db.execute(sql`
      WITH r AS (
        SELECT ci.contact_external_id AS contact, ${paymentBase} AS amount
        FROM payments p
        JOIN cash_items ci ON ci.org_id = p.org_id AND ci.external_id = p.invoice_external_id
          AND ci.source = 'LEDGER_INVOICE'
        WHERE p.org_id = ${orgId} AND p.status <> 'DELETED'
          AND p.date >= ${concFrom} AND p.date <= ${today}
      ),
      t AS (SELECT round(sum(amount), 2) AS total FROM r)
      SELECT g.contact, g.amount::text, t.total::text AS total, c.name
      FROM (SELECT contact, round(sum(amount), 2) AS amount FROM r
            WHERE contact IS NOT NULL GROUP BY contact ORDER BY 2 DESC, 1 LIMIT 1) g
      CROSS JOIN t
      LEFT JOIN contacts c ON c.org_id = ${orgId} AND c.external_id = g.contact`),
  )[0];

  return {
    currency: base,
    currentMonth,
    weeklyReceipts: receiptsWeekly,
    weeklySpending: weekly("ws"),
    monthlyReceipts,
    firstMonth: first?.first ?? null,
    next4wInflow: canonical(next4wInflow),
    last4wReceipts,
    ar,
    concentration: {
      top: conc?.contact
        ? {
            contactId: conc.contact,
            name: conc.name ?? "A customer",
            amount: canonical(conc.amount),
          }
        : null,
      total: canonical(conc?.total ?? "0"),
    },
  };
}

/**
 * Receivables and the part more than 60 days overdue, now and 8 weeks ago. Now: AUTHORISED
 * sales invoices' amount due. Then: invoices issued by that date and not yet settled then, for
 * their total less the payments and credit allocations dated by then (documents voided since
 * are left out: the ledger does not say when).
 */
async function arShares(
  db: DbOrTx,
  opts: { orgId: string; base: string; today: string },
): Promise<InsightInput["ar"]> {
  const { orgId, base, today } = opts;
  const r = DETECTOR_RULES.ar;
  const then = addDays(today, -7 * r.lookbackWeeks);
  const rate = (amount: ReturnType<typeof sql>) =>
    toBase(amount, {
      currency: sql`ci.currency`,
      baseCurrency: base,
      rates: [sql`ci.currency_rate`],
    });
  const rows = rowsOf<{
    totalNow: string | null;
    over60Now: string | null;
    totalThen: string | null;
    over60Then: string | null;
  }>(
    await db.execute(sql`
      WITH now_ar AS (
        SELECT ${rate(sql`coalesce(ci.amount_due, ci.amount)`)} AS amount, ci.due_date
        FROM cash_items ci
        WHERE ci.org_id = ${orgId} AND ci.source = 'LEDGER_INVOICE' AND ci.ledger_status = 'AUTHORISED'
      ),
      paid_then AS (
        SELECT invoice_external_id AS id, sum(amount) AS amount FROM payments
        WHERE org_id = ${orgId} AND status <> 'DELETED' AND date <= ${then}
          AND invoice_external_id IS NOT NULL
        GROUP BY invoice_external_id
      ),
      credited_then AS (
        SELECT invoice_external_id AS id, sum(amount) AS amount FROM credit_note_allocations
        WHERE org_id = ${orgId} AND (date IS NULL OR date <= ${then})
          AND invoice_external_id IS NOT NULL
        GROUP BY invoice_external_id
      ),
      then_ar AS (
        SELECT ${rate(sql`(ci.amount - coalesce(p.amount, 0) - coalesce(c.amount, 0))`)} AS amount,
               ci.due_date
        FROM cash_items ci
        LEFT JOIN paid_then p ON p.id = ci.external_id
        LEFT JOIN credited_then c ON c.id = ci.external_id
        WHERE ci.org_id = ${orgId} AND ci.source = 'LEDGER_INVOICE'
          AND ci.ledger_status IN ('AUTHORISED', 'PAID') AND ci.issue_date <= ${then}
          AND (ci.actual_date IS NULL OR ci.actual_date > ${then})
      )
      SELECT (SELECT round(sum(amount), 2)::text FROM now_ar WHERE amount > 0) AS "totalNow",
             (SELECT round(sum(amount), 2)::text FROM now_ar
               WHERE amount > 0 AND due_date < ${addDays(today, -r.overdueDays)}) AS "over60Now",
             (SELECT round(sum(amount), 2)::text FROM then_ar WHERE amount > 0) AS "totalThen",
             (SELECT round(sum(amount), 2)::text FROM then_ar
               WHERE amount > 0 AND due_date < ${addDays(then, -r.overdueDays)}) AS "over60Then"`),
  )[0];
  return {
    totalNow: canonical(rows?.totalNow ?? "0"),
    over60Now: canonical(rows?.over60Now ?? "0"),
    totalThen: canonical(rows?.totalThen ?? "0"),
    over60Then: canonical(rows?.over60Then ?? "0"),
  };
}
