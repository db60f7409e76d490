import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import type { AbcClass, Cadence, ChurnClass } from "../../db/schema/index.ts";
import {
  historicalLtv,
  LIFETIME_MIN_YEARS,
  projectedLtv,
} from "../../domain/baselines/customer-baselines.ts";
import { canonical, canonicalOrNull } from "../../domain/money.ts";
import { rowsOf } from "../summaries/summary-cache.ts";

/** The contact drill's analytic fields (spec: ContactDrill), ready to spread into it. */
export interface ContactDrillAnalytics {
  /** The organisation's gross margin (fraction in [0,1]) for a customer; null otherwise. */
  grossMarginPercent: number | null;
  /** run-rate × margin × expected lifetime × churn factor; null without a margin; `0` if churned. */
  projectedLtv: string | null;
  /** revenueAllTime × margin; null without a margin. */
  historicalLtv: string | null;
  /** The organisation's median engaged-customer lifetime, in [1, 5]; 1 before any baseline. */
  expectedLifetimeYears: number;
  paymentDelayMedianDays: string | null;
  cadence: Cadence | null;
  cadenceConfidence: number | null;
  abcClass: AbcClass | null;
}

/** One contact's baseline as the contact list and drill use it. */
export interface ContactBaselineView {
  /** ContactSummary.ltv: the cumulative gross-profit LTV; null for non-customers or no baseline. */
  ltv: string | null;
  drill: ContactDrillAnalytics;
  churnClass: ChurnClass | null;
  /** The revenue figures the LTVs were computed from (base currency, PAID gross). */
  revenueAllTime: string | null;
  revenueTrailing12m: string | null;
  /** When the baseline was computed; null when the contact has none. */
  computedAt: string | null;
  /** The organisation's margin as stored (exact decimal), for recomputing LTVs. */
  grossMargin: string | null;
}

interface Row {
  id: string;
  isCustomer: boolean | null;
  ltv: string | null;
  projected: string | null;
  delay: string | null;
  cadence: Cadence | null;
  confidence: number | null;
  abc: AbcClass | null;
  churn: ChurnClass | null;
  revAll: string | null;
  rev12m: string | null;
  computedAt: Date | string | null;
  lifetime: string | null;
  margin: string | null;
}

/**
 * The stored baselines of the given contacts (by ledger contact id), one entry per requested
 * id, in one indexed read. Contacts without a baseline row (not computed yet, or no documents)
 * get nulls, with the organisation's expected lifetime (1 before any baseline run). Fields that
 * the spec defines for customers only (margin, LTVs, ABC) are null for non-customers.
 */
export async function getContactBaselines(
  db: DbOrTx,
  orgId: string,
  contactExternalIds: readonly string[],
): Promise<Map<string, ContactBaselineView>> {
  const out = new Map<string, ContactBaselineView>();
  if (contactExternalIds.length === 0) return out;
  const rows = rowsOf<Row>(
    await db.execute(sql`
      SELECT x.id, b.is_customer AS "isCustomer", b.ltv_cumulative::text AS ltv,
             b.projected_ltv::text AS projected, b.payment_delay_median_days::text AS delay,
             b.cadence, b.cadence_confidence AS confidence, b.abc_class AS abc,
             b.churn_class AS churn, b.revenue_all_time::text AS "revAll",
             b.revenue_trailing_12m::text AS "rev12m", b.computed_at AS "computedAt",
             o.expected_lifetime_years::text AS lifetime, o.gross_margin::text AS margin
      FROM (SELECT unnest(ARRAY[${sql.join(
        contactExternalIds.map((i) => sql`${i}`),
        sql`, `,
      )}]::text[]) AS id) x
      LEFT JOIN contact_baselines b ON b.org_id = ${orgId} AND b.contact_external_id = x.id
      LEFT JOIN org_baselines o ON o.org_id = ${orgId}`),
  );
  for (const r of rows) {
    const customer = r.isCustomer === true;
    const lifetime = r.lifetime === null ? LIFETIME_MIN_YEARS : Number(r.lifetime);
    out.set(r.id, {
      ltv: customer ? canonicalOrNull(r.ltv) : null,
      drill: {
        grossMarginPercent: customer && r.margin !== null ? Number(r.margin) : null,
        projectedLtv: customer ? canonicalOrNull(r.projected) : null,
        historicalLtv: customer ? canonicalOrNull(r.ltv) : null,
        expectedLifetimeYears: lifetime,
        paymentDelayMedianDays: r.delay === null ? null : canonical(r.delay),
        cadence: customer ? r.cadence : null,
        cadenceConfidence: customer ? r.confidence : null,
        abcClass: customer ? r.abc : null,
      },
      churnClass: customer ? r.churn : null,
      revenueAllTime: r.revAll === null ? null : canonical(r.revAll),
      revenueTrailing12m: r.rev12m === null ? null : canonical(r.rev12m),
      computedAt:
        r.computedAt === null
          ? null
          : (r.computedAt instanceof Date ? r.computedAt : new Date(r.computedAt)).toISOString(),
      grossMargin: customer ? r.margin : null,
    });
  }
  return out;
}

/** The drill fields of a contact without a baseline: nothing known but the lifetime floor. */
export const NO_BASELINE: ContactDrillAnalytics = {
  grossMarginPercent: null,
  projectedLtv: null,
  historicalLtv: null,
  expectedLifetimeYears: LIFETIME_MIN_YEARS,
  paymentDelayMedianDays: null,
  cadence: null,
  cadenceConfidence: null,
  abcClass: null,
};

/**
 * The drill's analytic fields, with the LTVs recomputed from the drill's own revenue figures
 * (so that historicalLtv = revenueAllTime × grossMarginPercent holds on the response exactly as
 * the spec writes it, even when a sync moved the revenue since the last baseline run). Margin,
 * lifetime and churn class come from the baseline.
 */
export function drillFields(
  view: ContactBaselineView | undefined,
  revenue: { revenueAllTime: string; revenueTrailing12m: string },
): ContactDrillAnalytics {
  if (!view) return NO_BASELINE;
  const margin = view.grossMargin;
  if (margin === null) return view.drill;
  return {
    ...view.drill,
    historicalLtv: historicalLtv(revenue.revenueAllTime, margin),
    projectedLtv: projectedLtv({
      revenueTrailing12m: revenue.revenueTrailing12m,
      grossMargin: margin,
      expectedLifetimeYears: view.drill.expectedLifetimeYears,
      churn: view.churnClass,
    }),
  };
}
