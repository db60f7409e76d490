import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { contactBaselines, orgBaselines, orgInsights } from "../../db/schema/index.ts";
import {
  type ContactHistory,
  computeBaselines as computeContactBaselines,
} from "../../domain/baselines/customer-baselines.ts";
import { randomToken } from "../../domain/ids.ts";
import { money } from "../../domain/money.ts";
import { addDays } from "../../domain/summaries/calendar.ts";
import { lastFullMonths } from "../../domain/summaries/window.ts";
import { localDate } from "../../domain/timezones.ts";
import { getCohortSummary } from "../cohorts/cohorts.ts";
import type { ServiceContext } from "../context.ts";
import { getDailySummary } from "../daily-summary/get-daily-summary.ts";
import { detectOrgNotes } from "../insights/notes-for-agent.ts";
import { getContactsSummary } from "../summaries/contacts-summary.ts";
import {
  getExpensesSummary,
  getRevenueSummary,
  grossProfitFor,
} from "../summaries/ledger-summary.ts";
import { toBase } from "../summaries/sql-parts.ts";
import { rowsOf } from "../summaries/summary-cache.ts";
import { systemContext } from "../system-context.ts";

/** The trailing window of the organisation's gross margin: 12 full months. */
export const MARGIN_MONTHS = 12;

export interface BaselineRunResult {
  orgId: string;
  asOfDate: string;
  contacts: number;
  customers: number;
  engagedCustomers: number;
  expectedLifetimeYears: number;
  grossMargin: string | null;
  notes: number;
  durationMs: number;
  /** Time spent warming the summary cache (not part of durationMs). */
  warmMs: number;
}

interface HistoryRow {
  c: string;
  dates: string | null;
  orders: number;
  firstPaid: string | null;
  paidN: number;
  revAll: string | null;
  rev12m: string | null;
  delays: string | null;
  spend: string | null;
  bills: number;
}

/** Every contact's history in one grouped pass over the organisation's documents. */
async function loadHistories(
  db: Db,
  org: { id: string; baseCurrency: string },
  today: string,
): Promise<ContactHistory[]> {
  // ACTUAL inflows exactly as the contact drill counts them (db/queries/contacts.ts): the amount
  // paid (else the total), foreign documents at their own rate to the cent, so that the list's
  // `ltv` and the drill's historicalLtv agree.
  const paidBase = sql`(CASE WHEN currency = ${org.baseCurrency} THEN coalesce(amount_paid, amount)
    WHEN currency_rate > 0 THEN round(coalesce(amount_paid, amount) / currency_rate, 2)
    ELSE 0 END)`;
  const base = toBase(sql`amount`, {
    currency: sql`currency`,
    baseCurrency: org.baseCurrency,
    rates: [sql`currency_rate`],
  });
  const sale = sql`source = 'LEDGER_INVOICE' AND ledger_status IN ('AUTHORISED', 'PAID')`;
  const paid = sql`source = 'LEDGER_INVOICE' AND ledger_status = 'PAID'`;
  const bill = sql`source = 'LEDGER_BILL' AND ledger_status IN ('AUTHORISED', 'PAID')`;
  const rows = rowsOf<HistoryRow>(
    await db.execute(sql`
      SELECT contact_external_id AS c,
             string_agg(DISTINCT issue_date::text, ',') FILTER (WHERE ${sale} AND issue_date IS NOT NULL) AS dates,
             count(*) FILTER (WHERE ${sale})::int AS orders,
             (min(issue_date) FILTER (WHERE ${paid}))::text AS "firstPaid",
             count(*) FILTER (WHERE ${paid})::int AS "paidN",
             round(sum(${paidBase}) FILTER (WHERE ${paid}
               AND (actual_date IS NULL OR actual_date <= ${today}::date)), 2)::text AS "revAll",
             round(sum(${paidBase}) FILTER (WHERE ${paid} AND actual_date > ${addDays(today, -365)}::date
               AND actual_date <= ${today}::date), 2)::text AS "rev12m",
             string_agg((actual_date - due_date)::text, ',')
               FILTER (WHERE ${paid} AND actual_date IS NOT NULL AND due_date IS NOT NULL) AS delays,
             round(sum(${base}) FILTER (WHERE ${bill}), 2)::text AS spend,
             count(*) FILTER (WHERE ${bill})::int AS bills
      FROM cash_items
      WHERE org_id = ${org.id} AND source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
        AND contact_external_id IS NOT NULL
      GROUP BY contact_external_id`),
  );
  const flags = new Map(
    rowsOf<{ id: string; customer: boolean }>(
      await db.execute(sql`
        SELECT external_id AS id, is_customer AS customer FROM contacts WHERE org_id = ${org.id}`),
    ).map((r) => [r.id, r.customer] as const),
  );
  const byId = new Map(rows.map((r) => [r.c, r]));
  const ids = new Set([
    ...byId.keys(),
    ...[...flags].filter(([, customer]) => customer).map(([id]) => id),
  ]);
  return [...ids].sort().map((id): ContactHistory => {
    const r = byId.get(id);
    // A contact missing from the contact list is a customer when it has sales.
    const isCustomer = flags.get(id) ?? (r?.orders ?? 0) > 0;
    return {
      contactId: id,
      isCustomer,
      orderDates: r?.dates ? r.dates.split(",") : [],
      orderCount: r?.orders ?? 0,
      firstPaidDate: r?.firstPaid ?? null,
      paidInvoiceCount: r?.paidN ?? 0,
      revenueAllTime: r?.revAll ?? "0",
      revenueTrailing12m: r?.rev12m ?? "0",
      paymentDelays: r?.delays ? r.delays.split(",").map(Number) : [],
      spendAllTime: r?.spend ?? "0",
      billCount: r?.bills ?? 0,
    };
  });
}

/** The organisation's gross margin over 12 full months, clamped to [0, 1]; null without revenue. */
async function grossMargin(
  db: Db,
  org: { id: string; baseCurrency: string },
  today: string,
): Promise<{ margin: string | null; from: string; to: string }> {
  const window = lastFullMonths(today, MARGIN_MONTHS);
  const gp = await grossProfitFor(db, { orgId: org.id, baseCurrency: org.baseCurrency, window });
  if (gp.marginPercent === null) return { margin: null, ...window };
  const m = money(gp.grossProfit).div(gp.revenue);
  const clamped = m.lt(0) ? money(0) : m.gt(1) ? money(1) : m;
  return { margin: clamped.toDecimalPlaces(6).toString(), ...window };
}

const BATCH = 1000;

/**
 * Computes and stores an organisation's baselines (docs/insights.md): every contact's row in
 * contact_baselines, the organisation's expected lifetime and margin in org_baselines, and the
 * insight engine's notes in org_insights, all replaced in one transaction. Then warms the
 * summary cache for the new data version (default windows), unless `warm` is false.
 */
export async function computeBaselines(
  db: Db,
  input: { orgId: string; now: Date; warm?: boolean },
): Promise<BaselineRunResult> {
  const started = performance.now();
  const ctx = await systemContext(db, input.orgId, input.now);
  const org = ctx.org;
  const today = localDate(input.now, org.timezone);
  const histories = await loadHistories(db, org, today);
  const margin = await grossMargin(db, org, today);
  const run = computeContactBaselines(histories, { asOfDate: today, grossMargin: margin.margin });
  const notes = await detectOrgNotes(db, org, input.now);
  const durationMs = Math.round(performance.now() - started);
  await db.transaction(async (tx) => {
    // Two runs of one organisation (after an import, nightly) would interleave; serialise them.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`baselines:${org.id}`}))`);
    await tx.execute(sql`DELETE FROM contact_baselines WHERE org_id = ${org.id}`);
    for (let i = 0; i < run.contacts.length; i += BATCH) {
      await tx.insert(contactBaselines).values(
        run.contacts.slice(i, i + BATCH).map((c) => ({
          orgId: org.id,
          contactExternalId: c.contactId,
          computedAt: input.now,
          asOfDate: today,
          isCustomer: c.isCustomer,
          firstOrderDate: c.firstOrderDate,
          lastOrderDate: c.lastOrderDate,
          firstPaidDate: c.firstPaidDate,
          orderCount: c.orderCount,
          paidInvoiceCount: c.paidInvoiceCount,
          revenueAllTime: c.revenueAllTime,
          revenueTrailing12m: c.revenueTrailing12m,
          cadence: c.cadence,
          cadenceConfidence: c.cadenceConfidence,
          medianIntervalDays: c.medianIntervalDays === null ? null : String(c.medianIntervalDays),
          paymentDelayMedianDays: c.paymentDelayMedianDays,
          churnClass: c.churnClass,
          abcClass: c.abcClass,
          ltvCumulative: c.ltvCumulative,
          projectedLtv: c.projectedLtv,
          spendAllTime: c.spendAllTime,
          billCount: c.billCount,
        })),
      );
    }
    const baseline = {
      computedAt: input.now,
      asOfDate: today,
      expectedLifetimeYears: String(run.expectedLifetimeYears),
      grossMargin: margin.margin,
      marginFrom: margin.from,
      marginTo: margin.to,
      customers: run.customers,
      engagedCustomers: run.engagedCustomers,
      durationMs,
    };
    await tx
      .insert(orgBaselines)
      .values({ orgId: org.id, ...baseline })
      .onConflictDoUpdate({ target: orgBaselines.orgId, set: baseline });
    await tx.execute(sql`DELETE FROM org_insights WHERE org_id = ${org.id}`);
    if (notes.length > 0) {
      await tx.insert(orgInsights).values(
        notes.map((n, i) => ({
          id: `ins_${randomToken()}`,
          orgId: org.id,
          computedAt: input.now,
          asOfDate: today,
          kind: n.kind,
          window: n.window,
          severity: n.severity,
          rank: i + 1,
          impact: n.impact.toFixed(2),
          text: n.text,
          subjectContactId: n.subjectContactId ?? null,
          redactedText: n.redactedText ?? null,
        })),
      );
    }
  });
  const warmStarted = performance.now();
  if (input.warm !== false) await warmSummaries(ctx);
  return {
    orgId: org.id,
    asOfDate: today,
    contacts: run.contacts.length,
    customers: run.customers,
    engagedCustomers: run.engagedCustomers,
    expectedLifetimeYears: run.expectedLifetimeYears,
    grossMargin: margin.margin,
    notes: notes.length,
    durationMs,
    warmMs: Math.round(performance.now() - warmStarted),
  };
}

/** Computes the default-window summaries once so that the first request reads stored rows. */
export async function warmSummaries(ctx: ServiceContext): Promise<void> {
  await getRevenueSummary(ctx, {});
  await getExpensesSummary(ctx, {});
  await getContactsSummary(ctx, {});
  await getCohortSummary(ctx);
  await getDailySummary(ctx);
}
