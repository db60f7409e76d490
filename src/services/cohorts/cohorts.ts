import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type {
  CohortRetentionResponseSchema,
  CohortSummaryResponseSchema,
} from "../../contracts/agent/cohorts.ts";
import type { DbOrTx } from "../../db/client.ts";
import {
  type CohortData,
  type CohortMetric,
  clampPeriods,
  cohortRange,
  cohortSummary,
  retentionMatrix,
} from "../../domain/cohorts/cohorts.ts";
import { quoted } from "../../domain/quoted.ts";
import { addDays, firstDayOf, monthOf } from "../../domain/summaries/calendar.ts";
import { localDate } from "../../domain/timezones.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import { InvalidParameterError } from "../errors.ts";
import { notesForAgent } from "../insights/notes-for-agent.ts";
import { toBase } from "../summaries/sql-parts.ts";
import { cached, rowsOf } from "../summaries/summary-cache.ts";

/** Without a baseline churn class, a customer is active when it ordered within this many days. */
export const ACTIVE_FALLBACK_DAYS = 90;

/**
 * The cohort figures of an organisation on `today` (its local date), aggregated in SQL:
 * - a customer's acquisition month is the month of the issue date of its first PAID sales
 *   invoice; only acquisitions of the 24 months up to the current one count;
 * - a customer transacts in a month when an AUTHORISED or PAID sales invoice of it is issued
 *   in that month; revenue is those invoices' ex-tax totals in base currency;
 * - repeaters have two or more such invoices to date;
 * - active now: the baseline's churn class is Active or At-risk; without a baseline row, an
 *   invoice within the last 90 days.
 */
export async function loadCohortData(
  db: DbOrTx,
  opts: { orgId: string; baseCurrency: string; today: string },
): Promise<CohortData> {
  const { orgId, today } = opts;
  const range = cohortRange(monthOf(today));
  const revenue = toBase(sql`coalesce(sub_total, amount)`, {
    currency: sql`currency`,
    baseCurrency: opts.baseCurrency,
    rates: [sql`currency_rate`],
  });
  const rows = rowsOf<{
    kind: "cohort" | "cell" | "last";
    month: string;
    k: number | null;
    n: number;
    n2: number | null;
    n3: number | null;
    revenue: string | null;
  }>(
    await db.execute(sql`
      WITH inv AS (
        SELECT contact_external_id AS c, issue_date AS d, ledger_status AS st, ${revenue} AS rev
        FROM cash_items
        WHERE org_id = ${orgId} AND source = 'LEDGER_INVOICE'
          AND ledger_status IN ('AUTHORISED', 'PAID')
          AND issue_date IS NOT NULL AND issue_date <= ${today}
          AND contact_external_id IS NOT NULL
      ),
      per AS (
        SELECT c, min(d) FILTER (WHERE st = 'PAID') AS first_paid, count(*) AS orders,
               max(d) AS last_order
        FROM inv GROUP BY c
      ),
      cust AS (
        SELECT per.c, date_trunc('month', per.first_paid::timestamp)::date AS m0, per.orders, per.last_order,
               b.churn_class
        FROM per
        LEFT JOIN contact_baselines b ON b.org_id = ${orgId} AND b.contact_external_id = per.c
        WHERE per.first_paid >= ${firstDayOf(range.from)}
      ),
      act AS (
        SELECT i.c, cu.m0,
               ((extract(year FROM i.d) - extract(year FROM cu.m0)) * 12
                 + extract(month FROM i.d) - extract(month FROM cu.m0))::int AS k,
               sum(i.rev) AS rev
        FROM inv i JOIN cust cu ON cu.c = i.c
        WHERE i.d >= cu.m0
        GROUP BY i.c, cu.m0, 3
      )
      SELECT 'cohort' AS kind, to_char(m0::timestamp, 'YYYY-MM') AS month, NULL::int AS k,
             count(*)::int AS n,
             count(*) FILTER (WHERE orders >= 2)::int AS n2,
             count(*) FILTER (WHERE CASE WHEN churn_class IS NOT NULL THEN churn_class <> 'Churned'
                                         ELSE last_order >= ${addDays(today, -ACTIVE_FALLBACK_DAYS)}::date END)::int AS n3,
             NULL::text AS revenue
      FROM cust GROUP BY m0
      UNION ALL
      SELECT 'cell', to_char(m0::timestamp, 'YYYY-MM'), k, count(*)::int, NULL, NULL, round(sum(rev), 2)::text
      FROM act GROUP BY m0, k
      UNION ALL
      SELECT 'last', to_char(m0::timestamp, 'YYYY-MM'), last_k, count(*)::int, NULL, NULL, NULL
      FROM (SELECT c, m0, max(k) AS last_k FROM act GROUP BY c, m0) l
      GROUP BY m0, last_k`),
  );
  const data: {
    cohorts: CohortData["cohorts"][number][];
    cells: CohortData["cells"][number][];
    lastActive: CohortData["lastActive"][number][];
  } = {
    cohorts: [],
    cells: [],
    lastActive: [],
  };
  for (const r of rows) {
    if (r.kind === "cohort") {
      data.cohorts.push({ month: r.month, size: r.n, repeaters: r.n2 ?? 0, activeNow: r.n3 ?? 0 });
    } else if (r.kind === "cell") {
      data.cells.push({
        month: r.month,
        offset: r.k ?? 0,
        customers: r.n,
        revenue: r.revenue ?? "0",
      });
    } else {
      data.lastActive.push({ month: r.month, offset: r.k ?? 0, customers: r.n });
    }
  }
  return data;
}

async function cohortData(ctx: ServiceContext, today: string): Promise<CohortData> {
  return cached(ctx.db, { orgId: ctx.org.id, kind: "cohorts", key: today, now: ctx.now }, () =>
    loadCohortData(ctx.db, { orgId: ctx.org.id, baseCurrency: ctx.org.baseCurrency, today }),
  );
}

/** Spec: CohortRetentionResponse (alerts are the pipeline's). */
export type CohortRetentionResponse = Omit<
  z.infer<typeof CohortRetentionResponseSchema>,
  keyof typeof alertFields
>;

/**
 * `GET /api/agent/cohorts/retention`: the acquisition-cohort matrix (docs/insights.md).
 * `periods` is clamped to 1–24 (default 12); `granularity` accepts only `month` (`week` is
 * reserved and answers 400). redactedItemCount is always 0 and notesForAgent always empty.
 */
export async function getCohortRetention(
  ctx: ServiceContext,
  input: {
    metric?: CohortMetric | undefined;
    periods?: number | undefined;
    granularity?: string | undefined;
  },
): Promise<CohortRetentionResponse> {
  requireScope(ctx, "READ_SUMMARY");
  if (input.granularity !== undefined && input.granularity !== "month") {
    throw new InvalidParameterError(
      "granularity",
      input.granularity === "week"
        ? "weekly cohorts are not available yet; use granularity=month (the default)"
        : `granularity must be month, got ${quoted(input.granularity)}`,
    );
  }
  const today = localDate(ctx.now, ctx.org.timezone);
  const metric = input.metric ?? "retention";
  const matrix = retentionMatrix(await cohortData(ctx, today), {
    metric,
    periods: clampPeriods(input.periods),
    currentMonth: monthOf(today),
  });
  return {
    asOfDate: today,
    currency: ctx.org.baseCurrency,
    metric,
    periodLabels: matrix.periodLabels,
    cohorts: matrix.cohorts,
    redactedItemCount: 0,
    notesForAgent: [],
  };
}

/** Spec: CohortSummaryResponse (alerts are the pipeline's). */
export type CohortSummaryResponse = Omit<
  z.infer<typeof CohortSummaryResponseSchema>,
  keyof typeof alertFields
>;

/** `GET /api/agent/cohorts/summary`: the four KPIs with deltas, the top 3 cohorts, notes. */
export async function getCohortSummary(ctx: ServiceContext): Promise<CohortSummaryResponse> {
  requireScope(ctx, "READ_SUMMARY");
  const today = localDate(ctx.now, ctx.org.timezone);
  const [data, notes] = await Promise.all([cohortData(ctx, today), notesForAgent(ctx)]);
  const summary = cohortSummary(data, monthOf(today));
  return {
    asOfDate: today,
    currency: ctx.org.baseCurrency,
    window: summary.window,
    kpis: summary.kpis,
    topCohorts: summary.topCohorts,
    redactedItemCount: 0,
    notesForAgent: notes,
  };
}
