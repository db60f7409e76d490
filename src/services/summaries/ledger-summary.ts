import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type {
  ExpensesSummaryResponseSchema,
  GrossProfitSchema,
  RevenueSummaryResponseSchema,
  SummaryBucketSchema,
  SummaryMonthBucketSchema,
  SummaryTopContactSchema,
} from "../../contracts/agent/revenue-summary.ts";
import type { DbOrTx } from "../../db/client.ts";
import { LEDGER_STATUSES, type LedgerStatus } from "../../db/schema/index.ts";
import { canonical, money } from "../../domain/money.ts";
import { monthOf, monthsFrom } from "../../domain/summaries/calendar.ts";
import {
  isWindowError,
  lastFullMonths,
  resolveWindow,
  type SummaryWindow,
} from "../../domain/summaries/window.ts";
import { localDate } from "../../domain/timezones.ts";
import { categoriesVersion } from "../categories/categories.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { InvalidParameterError } from "../errors.ts";
import { paidCash, toBase } from "./sql-parts.ts";
import { cached, rowsOf } from "./summary-cache.ts";

/** The name a sensitive contact gets in summaries for keys without READ_SENSITIVE. */
export const SENSITIVE_CONTACT_NAME = "Sensitive contact";
/** topN: 1–100, default 10. The cache keeps the top 100 so any topN is served from it. */
export const TOP_N_DEFAULT = 10;
export const TOP_N_MAX = 100;

export type SummaryBucket = z.infer<typeof SummaryBucketSchema>;

export type SummaryMonthBucket = z.infer<typeof SummaryMonthBucketSchema>;

export type SummaryTopContact = z.infer<typeof SummaryTopContactSchema>;

export type GrossProfit = z.infer<typeof GrossProfitSchema>;

/** Spec: RevenueSummaryResponse / ExpensesSummaryResponse (alerts are the pipeline's). */
export type LedgerSummaryResponse = Omit<
  z.infer<typeof ExpensesSummaryResponseSchema>,
  keyof typeof alertFields
> &
  Partial<Pick<z.infer<typeof RevenueSummaryResponseSchema>, "grossProfit">>;

/** What is computed once per (window, month) and data version, before masking and topN. */
interface ComputedSummary {
  grandTotal: SummaryBucket;
  byStatus: Record<LedgerStatus, SummaryBucket>;
  byMonth: SummaryMonthBucket[];
  /** Up to TOP_N_MAX, by amount then contact id; names as the documents carry them. */
  top: SummaryTopContact[];
  grossProfit?: GrossProfit;
}

type Source = "LEDGER_INVOICE" | "LEDGER_BILL";

const zeroBuckets = (): Record<LedgerStatus, SummaryBucket> =>
  Object.fromEntries(LEDGER_STATUSES.map((s) => [s, { count: 0, amount: "0" }])) as Record<
    LedgerStatus,
    SummaryBucket
  >;

/**
 * PAID cash by month and by contact, with the PAID total, in one pass (grouping sets). Counts
 * are distinct documents: a document paid in two months counts once in each month and once in
 * the total.
 */
async function paidAggregates(
  db: DbOrTx,
  opts: { orgId: string; source: Source; baseCurrency: string; window: SummaryWindow },
) {
  const rows = rowsOf<{
    month: string | null;
    contact: string | null;
    gMonth: number;
    gContact: number;
    n: number;
    amount: string | null;
  }>(
    await db.execute(sql`
      WITH paid AS (${paidCash({ ...opts, from: opts.window.from, to: opts.window.to })})
      SELECT to_char(paid.date::timestamp, 'YYYY-MM') AS month, paid.contact,
             grouping(to_char(paid.date::timestamp, 'YYYY-MM'))::int AS "gMonth",
             grouping(paid.contact)::int AS "gContact",
             count(DISTINCT paid.id)::int AS n, round(sum(paid.ex_tax), 2)::text AS amount
      FROM paid
      GROUP BY GROUPING SETS ((to_char(paid.date::timestamp, 'YYYY-MM')), (paid.contact), ())`),
  );
  return rows;
}

async function otherStatuses(
  db: DbOrTx,
  opts: { orgId: string; source: Source; baseCurrency: string; window: SummaryWindow },
) {
  const owed = toBase(sql`coalesce(amount_due, amount)`, {
    currency: sql`currency`,
    baseCurrency: opts.baseCurrency,
    rates: [sql`currency_rate`],
  });
  const gross = toBase(sql`amount`, {
    currency: sql`currency`,
    baseCurrency: opts.baseCurrency,
    rates: [sql`currency_rate`],
  });
  return rowsOf<{ status: LedgerStatus; n: number; amount: string | null }>(
    await db.execute(sql`
      SELECT ledger_status AS status, count(*)::int AS n,
             round(sum(CASE WHEN ledger_status = 'AUTHORISED' THEN ${owed} ELSE ${gross} END), 2)::text AS amount
      FROM cash_items
      WHERE org_id = ${opts.orgId} AND source = ${opts.source}
        AND ledger_status IS NOT NULL AND ledger_status <> 'PAID'
        AND document_date >= ${opts.window.from} AND document_date <= ${opts.window.to}
      GROUP BY ledger_status`),
  );
}

/**
 * Gross profit over a window, cash basis like the PAID figures: revenue = ex-tax cash received
 * on PAID sales invoices, less each invoice's share of line amounts on accounts the owner took
 * out of revenue (Settings → Account categories: excluded, or placed outside Revenue); cost of
 * goods = ex-tax cash paid on PAID bills times each bill's share of ex-tax line amounts on COGS
 * accounts (by code or account id): DIRECTCOSTS by default, or as the owner placed them, unless
 * excluded. Without any owner choice the figures are the ledger's own.
 */
export async function grossProfitFor(
  db: DbOrTx,
  opts: { orgId: string; baseCurrency: string; window: SummaryWindow },
): Promise<GrossProfit> {
  const { orgId, window } = opts;
  const rows = rowsOf<{ revenue: string | null; cogs: string | null }>(
    await db.execute(sql`
      WITH revenue AS (${paidCash({ ...opts, source: "LEDGER_INVOICE", from: window.from, to: window.to })}),
           bills AS (${paidCash({ ...opts, source: "LEDGER_BILL", from: window.from, to: window.to })}),
           dc AS (
             SELECT code, external_id FROM ledger_accounts
             WHERE org_id = ${orgId}
               AND coalesce(pnl_position, CASE WHEN type = 'DIRECTCOSTS' THEN 'COGS' END) = 'COGS'
               AND include_in_burn IS NOT FALSE),
           off AS (
             SELECT code, external_id FROM ledger_accounts
             WHERE org_id = ${orgId}
               AND (include_in_burn IS FALSE OR pnl_position <> 'REVENUE'))
      SELECT (CASE WHEN NOT EXISTS (SELECT 1 FROM off)
                THEN (SELECT round(sum(ex_tax), 2)::text FROM revenue)
                ELSE (SELECT round(sum(r.ex_tax * (1 - s.share)), 2)::text
                  FROM revenue r
                  CROSS JOIN LATERAL (
                    SELECT coalesce(
                      sum(CASE WHEN l.account_code IN (SELECT code FROM off WHERE code IS NOT NULL)
                                 OR l.account_external_id IN (SELECT external_id FROM off)
                               THEN l.line_amount ELSE 0 END) / nullif(sum(l.line_amount), 0),
                      0) AS share
                    FROM cash_item_lines l
                    WHERE l.org_id = ${orgId} AND l.cash_item_id = r.id) s)
              END) AS revenue,
             (SELECT round(sum(b.ex_tax * s.share), 2)::text
                FROM bills b
                CROSS JOIN LATERAL (
                  SELECT coalesce(
                    sum(CASE WHEN l.account_code IN (SELECT code FROM dc WHERE code IS NOT NULL)
                               OR l.account_external_id IN (SELECT external_id FROM dc)
                             THEN l.line_amount ELSE 0 END) / nullif(sum(l.line_amount), 0),
                    0) AS share
                  FROM cash_item_lines l
                  WHERE l.org_id = ${orgId} AND l.cash_item_id = b.id) s) AS cogs`),
  );
  const revenue = money(rows[0]?.revenue ?? "0");
  const cogs = money(rows[0]?.cogs ?? "0");
  const profit = revenue.minus(cogs);
  return {
    revenue: canonical(revenue),
    costOfGoods: canonical(cogs),
    grossProfit: canonical(profit),
    marginPercent: revenue.isZero() ? null : profit.div(revenue).toDecimalPlaces(4).toNumber(),
    window,
  };
}

async function computeSummary(
  db: DbOrTx,
  opts: {
    orgId: string;
    source: Source;
    baseCurrency: string;
    window: SummaryWindow;
    grossProfitWindow: SummaryWindow | null;
  },
): Promise<ComputedSummary> {
  const [paid, others, grossProfit] = [
    await paidAggregates(db, opts),
    await otherStatuses(db, opts),
    opts.grossProfitWindow
      ? await grossProfitFor(db, { ...opts, window: opts.grossProfitWindow })
      : undefined,
  ];
  const byStatus = zeroBuckets();
  for (const o of others) byStatus[o.status] = { count: o.n, amount: canonical(o.amount ?? "0") };
  const total = paid.find((r) => r.gMonth === 1 && r.gContact === 1);
  const grandTotal = { count: total?.n ?? 0, amount: canonical(total?.amount ?? "0") };
  byStatus.PAID = grandTotal;
  const months = new Map(
    paid.filter((r) => r.gMonth === 0).map((r) => [r.month ?? "", r] as const),
  );
  const byMonth = monthsFrom(monthOf(opts.window.from), monthOf(opts.window.to)).map((month) => {
    const r = months.get(month);
    return { month, count: r?.n ?? 0, amount: canonical(r?.amount ?? "0") };
  });
  const contacts = paid
    .filter((r) => r.gContact === 0 && r.contact !== null)
    .sort(
      (a, b) =>
        money(b.amount ?? "0").comparedTo(a.amount ?? "0") ||
        ((a.contact ?? "") < (b.contact ?? "") ? -1 : 1),
    )
    .slice(0, TOP_N_MAX);
  const names = await contactNames(
    db,
    opts.orgId,
    contacts.map((c) => c.contact ?? ""),
  );
  const top = contacts.map((c) => ({
    contactId: c.contact ?? "",
    name: names.get(c.contact ?? "")?.name ?? "",
    count: c.n,
    amount: canonical(c.amount ?? "0"),
  }));
  return { grandTotal, byStatus, byMonth, top, ...(grossProfit ? { grossProfit } : {}) };
}

/**
 * Current names and sensitivity of contacts by ledger id (a contact missing from the contact
 * list falls back to the name on its latest document).
 */
export async function contactNames(
  db: DbOrTx,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, { name: string; isSensitive: boolean }>> {
  const out = new Map<string, { name: string; isSensitive: boolean }>();
  if (ids.length === 0) return out;
  const rows = rowsOf<{ id: string; name: string | null; sensitive: boolean | null }>(
    await db.execute(sql`
      SELECT x.id, coalesce(c.name, (
               SELECT ci.contact_name FROM cash_items ci
               WHERE ci.org_id = ${orgId} AND ci.contact_external_id = x.id
                 AND ci.contact_name IS NOT NULL
               ORDER BY ci.document_date DESC NULLS LAST LIMIT 1)) AS name,
             c.is_sensitive AS sensitive
      FROM (SELECT unnest(ARRAY[${sql.join(
        ids.map((i) => sql`${i}`),
        sql`, `,
      )}]::text[]) AS id) x
      LEFT JOIN contacts c ON c.org_id = ${orgId} AND c.external_id = x.id`),
  );
  for (const r of rows) out.set(r.id, { name: r.name ?? "", isSensitive: r.sensitive === true });
  return out;
}

/**
 * Masks the top contacts for keys without READ_SENSITIVE: a sensitive contact's row keeps its
 * amount and count but is named "Sensitive contact" with a blank contactId. Sensitivity and
 * names are read now, not from the cache, so a flag set after the computation applies at once.
 */
export async function maskTopContacts(
  db: DbOrTx,
  ctx: ServiceContext,
  rows: readonly SummaryTopContact[],
): Promise<{ rows: SummaryTopContact[]; redacted: number }> {
  const current = await contactNames(
    db,
    ctx.org.id,
    rows.map((r) => r.contactId),
  );
  const showSensitive = canSeeSensitive(ctx);
  let redacted = 0;
  const out = rows.map((r) => {
    const c = current.get(r.contactId);
    if (c?.isSensitive && !showSensitive) {
      redacted += 1;
      return { contactId: "", name: SENSITIVE_CONTACT_NAME, count: r.count, amount: r.amount };
    }
    return { ...r, name: c?.name || r.name };
  });
  return { rows: out, redacted };
}

export interface LedgerSummaryInput {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  topN?: number | undefined;
}

/**
 * The revenue (sales invoices) or expenses (bills) summary. PAID is ex-tax cash by payment date
 * (grandTotal, byStatus.PAID, byMonth, topContacts); the other statuses are documents dated in
 * the window (AUTHORISED: gross still owed; DRAFT, SUBMITTED, VOIDED, DELETED: gross totals).
 * Money is in the base currency. Computed in SQL and kept in the summary cache per window and
 * data version; names are masked per key when served.
 */
export async function getLedgerSummary(
  ctx: ServiceContext,
  source: Source,
  input: LedgerSummaryInput,
): Promise<LedgerSummaryResponse> {
  requireScope(ctx, "READ_SUMMARY");
  const today = localDate(ctx.now, ctx.org.timezone);
  const window = resolveWindow({
    dateFrom: input.dateFrom,
    dateTo: input.dateTo,
    today,
    yearEndMonth: ctx.org.financialYearEndMonth,
    yearEndDay: ctx.org.financialYearEndDay,
  });
  if (isWindowError(window)) throw new InvalidParameterError(window.parameter, window.message);
  const topN = input.topN ?? TOP_N_DEFAULT;
  const grossProfitWindow = source === "LEDGER_INVOICE" ? lastFullMonths(today) : null;
  const computed = await cached(
    ctx.db,
    {
      orgId: ctx.org.id,
      kind: source === "LEDGER_INVOICE" ? "revenue" : "expenses",
      // The owner's account categories change gross profit: they are part of the key.
      key: `${window.from}..${window.to}@${grossProfitWindow?.from ?? "-"}${
        grossProfitWindow ? `#${await categoriesVersion(ctx.db, ctx.org.id)}` : ""
      }`,
      now: ctx.now,
    },
    () =>
      computeSummary(ctx.db, {
        orgId: ctx.org.id,
        source,
        baseCurrency: ctx.org.baseCurrency,
        window,
        grossProfitWindow,
      }),
  );
  const masked = await maskTopContacts(ctx.db, ctx, computed.top.slice(0, topN));
  return {
    asOfDate: today,
    currency: ctx.org.baseCurrency,
    window,
    grandTotal: computed.grandTotal,
    byStatus: computed.byStatus,
    byMonth: computed.byMonth,
    topContacts: masked.rows,
    redactedItemCount: masked.redacted,
    ...(computed.grossProfit ? { grossProfit: computed.grossProfit } : {}),
  };
}

/** `GET /api/agent/revenue/summary`. */
export const getRevenueSummary = (ctx: ServiceContext, input: LedgerSummaryInput) =>
  getLedgerSummary(ctx, "LEDGER_INVOICE", input);

/** `GET /api/agent/expenses/summary`. */
export const getExpensesSummary = (ctx: ServiceContext, input: LedgerSummaryInput) =>
  getLedgerSummary(ctx, "LEDGER_BILL", input);
