import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type { DailySummaryResponseSchema } from "../../contracts/agent/daily-summary.ts";
import type { DbOrTx } from "../../db/client.ts";
import { canonical, money } from "../../domain/money.ts";
import { addDays, dateTimeOf } from "../../domain/summaries/calendar.ts";
import {
  type ForecastHeadline,
  forecastHeadline,
} from "../../domain/summaries/forecast-headline.ts";
import { dailyNarrative } from "../../domain/summaries/narrative.ts";
import { localDate } from "../../domain/timezones.ts";
import { computeStartingCash, INFLOW_PAYMENT_TYPES } from "../cash-position/starting-cash.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { getForecast } from "../forecast/get-forecast.ts";
import { notesForAgent } from "../insights/notes-for-agent.ts";
import { SENSITIVE_CONTACT_NAME } from "../summaries/ledger-summary.ts";
import { toBase } from "../summaries/sql-parts.ts";
import { cached, rowsOf } from "../summaries/summary-cache.ts";

/** Spec: DailySummaryResponse (alerts are the pipeline's). */
export type DailySummaryResponse = Omit<
  z.infer<typeof DailySummaryResponseSchema>,
  keyof typeof alertFields
>;

/** Events per direction in last7d. */
export const TOP_EVENTS = 5;
/** Unnamed events (a spend-money line without a contact) show this. */
export const NO_CONTACT_NAME = "No contact";

/** One of the largest movements, as computed (unmasked) and cached. */
interface EventRow {
  dir: "in" | "out";
  rn: number;
  amount: string;
  date: string;
  name: string | null;
  /** The ledger contact, the bank account and (spend/receive money) the coded account. */
  contact: string | null;
  bank: string | null;
  code: string | null;
}

/**
 * Money moved over the 7 days ending `today`: payments (customer receipts, bill payments,
 * refunds) and spend/receive-money lines, transfers between own accounts excluded, deleted or
 * voided ones excluded, in base currency. Totals plus the 5 largest events each way (ties: the
 * later, then by id). Documents are looked up one by one (LATERAL): a week holds a few thousand
 * payments at most, and a hash join would read every document of the organisation.
 */
async function lastSevenDays(db: DbOrTx, org: { id: string; baseCurrency: string }, today: string) {
  const from = addDays(today, -6);
  const base = org.baseCurrency;
  const paymentBase = toBase(sql`p.amount`, {
    currency: sql`coalesce(d.currency, ${base})`,
    baseCurrency: base,
    rates: [sql`p.currency_rate`, sql`d.currency_rate`],
  });
  const txBase = toBase(sql`t.total`, { currency: sql`t.currency`, baseCurrency: base, rates: [] });
  const inflowTypes = sql.join(
    INFLOW_PAYMENT_TYPES.map((t) => sql`${t}`),
    sql`, `,
  );
  const rows = rowsOf<EventRow & { total: string | null }>(
    await db.execute(sql`
      WITH ev AS (
        SELECT 'p' || p.id AS id, p.date,
               CASE WHEN p.payment_type IN (${inflowTypes}) THEN 'in'
                    WHEN p.payment_type IS NOT NULL THEN 'out'
                    WHEN d.kind = 'LEDGER_BILL' THEN 'out'
                    WHEN d.kind = 'LEDGER_INVOICE' THEN 'in'
                    WHEN d.kind = 'ACCRECCREDIT' THEN 'out'
                    ELSE 'in' END AS dir,
               ${paymentBase} AS amount,
               d.contact, d.doc_name, p.bank_account_external_id AS bank, NULL::text AS code
        FROM payments p
        LEFT JOIN LATERAL (
          SELECT ci.source AS kind, ci.currency, ci.currency_rate,
                 ci.contact_external_id AS contact, ci.contact_name AS doc_name
          FROM cash_items ci
          WHERE p.invoice_external_id IS NOT NULL AND ci.org_id = p.org_id
            AND ci.source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
            AND ci.external_id = p.invoice_external_id
          UNION ALL
          SELECT cn.type, cn.currency, cn.currency_rate, cn.contact_external_id, cn.contact_name
          FROM credit_notes cn
          WHERE p.credit_note_external_id IS NOT NULL AND cn.org_id = p.org_id
            AND cn.external_id = p.credit_note_external_id
          LIMIT 1
        ) d ON true
        WHERE p.org_id = ${org.id} AND p.status <> 'DELETED'
          AND p.date >= ${from} AND p.date <= ${today}
        UNION ALL
        SELECT 't' || t.id, t.date, CASE WHEN t.type LIKE 'RECEIVE%' THEN 'in' ELSE 'out' END,
               ${txBase}, t.contact_external_id, t.contact_name, t.bank_account_external_id,
               t.account_code
        FROM bank_transactions t
        WHERE t.org_id = ${org.id} AND t.status NOT IN ('VOIDED', 'DELETED')
          AND t.type NOT IN ('SPEND-TRANSFER', 'RECEIVE-TRANSFER')
          AND t.date >= ${from} AND t.date <= ${today}
      ),
      ranked AS (
        SELECT ev.*, row_number() OVER (PARTITION BY dir ORDER BY amount DESC, date DESC, id) AS rn,
               round(sum(amount) OVER (PARTITION BY dir), 2)::text AS total
        FROM ev
      )
      SELECT r.dir, r.rn::int AS rn, round(r.amount, 2)::text AS amount, r.date::text AS date,
             coalesce(c.name, r.doc_name) AS name, r.total, r.contact, r.bank, r.code
      FROM ranked r
      LEFT JOIN contacts c ON c.org_id = ${org.id} AND c.external_id = r.contact
      WHERE r.rn <= ${TOP_EVENTS}
      ORDER BY r.dir, r.rn`),
  );
  const total = (dir: "in" | "out") => canonical(rows.find((r) => r.dir === dir)?.total ?? "0");
  return {
    events: rows.map(({ total: _t, ...e }) => e),
    inflow: total("in"),
    outflow: total("out"),
  };
}

/**
 * Which events are sensitive now: their contact is flagged, or they moved through a flagged
 * bank account, or (spend/receive money) they are coded to a flagged account. Read on every
 * request, so a flag set after the cached computation applies at once.
 */
async function sensitiveEvents(
  db: DbOrTx,
  orgId: string,
  events: readonly EventRow[],
): Promise<boolean[]> {
  if (events.length === 0) return [];
  const contactIds = [...new Set(events.flatMap((e) => (e.contact ? [e.contact] : [])))];
  const flagged = rowsOf<{ kind: string; ref: string }>(
    await db.execute(sql`
      SELECT 'contact' AS kind, external_id AS ref FROM contacts
      WHERE org_id = ${orgId} AND is_sensitive
        AND external_id IN (${
          contactIds.length
            ? sql.join(
                contactIds.map((c) => sql`${c}`),
                sql`, `,
              )
            : sql`NULL`
        })
      UNION ALL
      SELECT 'account', external_id FROM ledger_accounts WHERE org_id = ${orgId} AND is_sensitive
      UNION ALL
      SELECT 'code', code FROM ledger_accounts WHERE org_id = ${orgId} AND is_sensitive AND code IS NOT NULL`),
  );
  const has = (kind: string, ref: string | null) =>
    ref !== null && flagged.some((f) => f.kind === kind && f.ref === ref);
  return events.map(
    (e) => has("contact", e.contact) || has("account", e.bank) || has("code", e.code),
  );
}

/** Receivable ageing on `today`: AUTHORISED sales invoices' amount due by days past due. */
async function ageing(db: DbOrTx, org: { id: string; baseCurrency: string }, today: string) {
  const due = toBase(sql`coalesce(amount_due, amount)`, {
    currency: sql`currency`,
    baseCurrency: org.baseCurrency,
    rates: [sql`currency_rate`],
  });
  const row = rowsOf<Record<string, string | number | null>>(
    await db.execute(sql`
      WITH ar AS (
        SELECT ${due} AS amount, (${today}::date - coalesce(due_date, expected_date)) AS late
        FROM cash_items
        WHERE org_id = ${org.id} AND source = 'LEDGER_INVOICE' AND ledger_status = 'AUTHORISED'
          AND coalesce(amount_due, amount) > 0
      )
      SELECT round(coalesce(sum(amount) FILTER (WHERE late <= 0), 0), 2)::text AS current,
             round(coalesce(sum(amount) FILTER (WHERE late BETWEEN 1 AND 30), 0), 2)::text AS d30,
             round(coalesce(sum(amount) FILTER (WHERE late BETWEEN 31 AND 60), 0), 2)::text AS d60,
             round(coalesce(sum(amount) FILTER (WHERE late BETWEEN 61 AND 90), 0), 2)::text AS d90,
             round(coalesce(sum(amount) FILTER (WHERE late > 90), 0), 2)::text AS d90plus,
             round(coalesce(sum(amount), 0), 2)::text AS total,
             count(*) FILTER (WHERE late > 0)::int AS overdue
      FROM ar`),
  )[0];
  const s = (k: string) => canonical(String(row?.[k] ?? "0"));
  return {
    current: s("current"),
    days1to30: s("d30"),
    days31to60: s("d60"),
    days61to90: s("d90"),
    days90plus: s("d90plus"),
    total: s("total"),
    overdueCount: Number(row?.overdue ?? 0),
  };
}

/** The latest BASE forecast's headline, or null when none has been computed. */
export async function latestForecastHeadline(
  ctx: ServiceContext,
): Promise<ForecastHeadline | null> {
  try {
    // The summary needs the trajectory only (never account names), whatever the key's scopes.
    const f = await getForecast({ ctx: { ...ctx, actor: { type: "system" }, scopes: [] } });
    return forecastHeadline(f);
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/**
 * `GET /api/agent/daily-summary`: today's cash, the last 7 days, receivable ageing, the 13-week
 * forecast headline, a deterministic narrative and the notes. Totals are never masked; only the
 * names of masked events become "Sensitive contact" (counted in redactedItemCount).
 */
export async function getDailySummary(ctx: ServiceContext): Promise<DailySummaryResponse> {
  requireScope(ctx, "READ_SUMMARY");
  const today = localDate(ctx.now, ctx.org.timezone);
  // Independent reads, concurrent on a pool (PGlite runs them one after another anyway). The 7
  // days and the ageing move only with the data and the date: cached per data version.
  const [cash, { week, ar }, forecast, notes] = await Promise.all([
    computeStartingCash(ctx.db, ctx.org, ctx.now),
    cached(ctx.db, { orgId: ctx.org.id, kind: "daily", key: today, now: ctx.now }, async () => ({
      week: await lastSevenDays(ctx.db, ctx.org, today),
      ar: await ageing(ctx.db, ctx.org, today),
    })),
    latestForecastHeadline(ctx),
    notesForAgent(ctx),
  ]);
  const flags = await sensitiveEvents(ctx.db, ctx.org.id, week.events);
  const showSensitive = canSeeSensitive(ctx);
  let redactedItemCount = 0;
  const events = (dir: "in" | "out") =>
    week.events.flatMap((r, i) => {
      if (r.dir !== dir) return [];
      const hide = flags[i] === true && !showSensitive;
      if (hide) redactedItemCount += 1;
      return [
        {
          contactName: hide ? SENSITIVE_CONTACT_NAME : (r.name ?? NO_CONTACT_NAME),
          amount: canonical(r.amount),
          date: dateTimeOf(r.date),
        },
      ];
    });
  const topInflows = events("in");
  const topOutflows = events("out");
  const net = money(week.inflow).minus(week.outflow);
  const overdue = money(ar.total).minus(ar.current);
  const narrative = dailyNarrative({
    currency: ctx.org.baseCurrency,
    cashToday: cash.effectiveStartingCash,
    bankAccounts: cash.accounts.length,
    inflow: week.inflow,
    outflow: week.outflow,
    net: net.toString(),
    arTotal: ar.total,
    overdueAmount: overdue.toString(),
    overdueCount: ar.overdueCount,
    forecast,
  });
  return {
    orgName: ctx.org.name,
    generatedAt: ctx.now.toISOString(),
    asOfDate: today,
    cashToday: { amount: cash.effectiveStartingCash, currency: cash.currency, source: cash.source },
    bankAccounts: cash.accounts.length,
    last7d: {
      inflow: week.inflow,
      outflow: week.outflow,
      net: canonical(net),
      topInflows,
      topOutflows,
    },
    ar,
    forecast13w: {
      endingCash: forecast?.endingCash ?? null,
      minClosingCash: forecast?.minClosingCash ?? null,
      minClosingWeekStart: forecast?.minClosingWeekStart ?? null,
      breakEvenDate: forecast?.breakEvenDate ?? null,
    },
    narrative,
    notesForAgent: notes,
    redactedItemCount,
  };
}
