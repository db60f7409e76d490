import { canonical, money } from "../money.ts";
import { addMonths, monthsBetween } from "../summaries/calendar.ts";

/** At most this many acquisition months (the current one included). */
export const MAX_COHORTS = 24;
/** Offset columns: 1–24, default 12; out-of-range values are clamped. */
export const MIN_PERIODS = 1;
export const MAX_PERIODS = 24;
export const DEFAULT_PERIODS = 12;
/** The KPI halves: the 6 most recent acquisition months against the 6 before. */
export const KPI_HALF_MONTHS = 6;
export const TOP_COHORTS = 3;
/** Offset of the "90 days after acquisition" retention (M3). */
export const RETENTION_90D_OFFSET = 3;

export type CohortMetric = "retention" | "customers" | "revenue";

/**
 * What the database aggregates (see the cohort service): per acquisition month, its size, how
 * many of its customers ordered at least twice and how many are active now; per (cohort,
 * offset), the customers that transacted and their revenue; per (cohort, offset of the last
 * month with a transaction), how many customers stopped there.
 */
export interface CohortData {
  cohorts: readonly { month: string; size: number; repeaters: number; activeNow: number }[];
  cells: readonly { month: string; offset: number; customers: number; revenue: string }[];
  lastActive: readonly { month: string; offset: number; customers: number }[];
}

export interface CohortRow {
  cohort: string;
  customers: number;
  revenue: string;
  activeNow: number;
  values: (number | string | null)[];
}

export function clampPeriods(periods: number | undefined): number {
  if (periods === undefined) return DEFAULT_PERIODS;
  return Math.min(MAX_PERIODS, Math.max(MIN_PERIODS, Math.trunc(periods)));
}

/** The acquisition months in scope: the current month and the 23 before it. */
export function cohortRange(currentMonth: string): { from: string; to: string } {
  return { from: addMonths(currentMonth, -(MAX_COHORTS - 1)), to: currentMonth };
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

interface Index {
  cells: Map<string, { customers: number; revenue: string }>;
  /** survivors[k] of a cohort: customers whose last transaction is at offset k or later. */
  survivors: Map<string, number[]>;
}

function index(data: CohortData): Index {
  const cells = new Map<string, { customers: number; revenue: string }>();
  for (const c of data.cells) cells.set(`${c.month}#${c.offset}`, c);
  const survivors = new Map<string, number[]>();
  const byCohort = new Map<string, Map<number, number>>();
  for (const l of data.lastActive) {
    const m = byCohort.get(l.month) ?? new Map<number, number>();
    m.set(l.offset, (m.get(l.offset) ?? 0) + l.customers);
    byCohort.set(l.month, m);
  }
  for (const c of data.cohorts) {
    const stops = byCohort.get(c.month) ?? new Map<number, number>();
    const out = new Array<number>(MAX_PERIODS).fill(0);
    // Walk down from the last offset, accumulating customers still transacting at k or later.
    // Cohorts span at most 24 months, so no stop lies beyond the last column.
    let alive = 0;
    for (let k = MAX_PERIODS - 1; k >= 0; k--) {
      alive += stops.get(k) ?? 0;
      out[k] = alive;
    }
    survivors.set(c.month, out);
  }
  return { cells, survivors };
}

/** Survival share of a cohort at offset k (M0 = 1 for a non-empty cohort). */
function survival(ix: Index, month: string, size: number, k: number): number {
  if (size === 0) return 0;
  return (ix.survivors.get(month)?.[k] ?? 0) / size;
}

/**
 * The retention matrix: one row per acquisition month (oldest first), `periods` offset columns.
 * A cell is null when its month has not started by `currentMonth` (not elapsed), which is
 * distinct from a real 0. Metrics: `retention` = survival share (customers still transacting
 * at that offset or later, over the cohort size; M0 = 1), `customers` = customers transacting
 * in that offset month, `revenue` = their ex-tax revenue in that month (decimal string).
 * `revenue` of the row sums every elapsed offset, whatever `periods` is.
 */
export function retentionMatrix(
  data: CohortData,
  opts: { metric: CohortMetric; periods: number; currentMonth: string },
): { periodLabels: string[]; cohorts: CohortRow[] } {
  const ix = index(data);
  const periodLabels = Array.from({ length: opts.periods }, (_, k) => `M${k}`);
  const rows = [...data.cohorts]
    .sort((a, b) => (a.month < b.month ? -1 : 1))
    .map((c): CohortRow => {
      const elapsed = monthsBetween(c.month, opts.currentMonth);
      let revenue = money(0);
      for (let k = 0; k <= elapsed; k++)
        revenue = revenue.plus(ix.cells.get(`${c.month}#${k}`)?.revenue ?? 0);
      const values = periodLabels.map((_, k) => {
        if (k > elapsed) return null;
        const cell = ix.cells.get(`${c.month}#${k}`);
        if (opts.metric === "customers") return cell?.customers ?? 0;
        if (opts.metric === "revenue") return canonical(cell?.revenue ?? "0");
        return round4(survival(ix, c.month, c.size, k));
      });
      return {
        cohort: c.month,
        customers: c.size,
        revenue: canonical(revenue.toDecimalPlaces(2)),
        activeNow: c.activeNow,
        values,
      };
    });
  return { periodLabels, cohorts: rows };
}

export interface CohortKpi {
  value: number;
  delta: number | null;
  deltaKind: "pct" | "rate";
}

export interface CohortSummary {
  window: { from: string; to: string };
  kpis: {
    newCustomers: CohortKpi;
    repeatOrderRate: CohortKpi;
    avgRevenuePerCustomer: CohortKpi;
    retention90d: CohortKpi;
  };
  topCohorts: { acquisitionMonth: string; cohortSize: number; retention3: number }[];
}

/**
 * The four KPIs over the 6 most recent acquisition months (current month included), each with
 * its delta against the 6 months before:
 * - newCustomers: customers acquired; delta `rate` (relative change, 0.15 = +15%).
 * - repeatOrderRate: share of those customers with two or more orders to date; delta `pct`
 *   (difference of the two fractions: 0.05 = 5 percentage points).
 * - avgRevenuePerCustomer: their ex-tax revenue to date per customer; delta `rate`.
 * - retention90d: survival at M3 over the half's cohorts whose M3 has started; delta `pct`.
 * A delta is null when the prior half has no base (no customers, or no cohort with M3 started;
 * for a `rate`, a prior value of 0). A value without any base is 0.
 * Top cohorts: the 3 with the best M3 survival among cohorts whose M3 has started (ties: larger
 * cohort, then the more recent month).
 */
export function cohortSummary(data: CohortData, currentMonth: string): CohortSummary {
  const ix = index(data);
  const sorted = [...data.cohorts].sort((a, b) => (a.month < b.month ? -1 : 1));
  const half = (from: number, to: number) =>
    sorted.filter((c) => {
      const age = monthsBetween(c.month, currentMonth);
      return age >= from && age <= to;
    });
  const recent = half(0, KPI_HALF_MONTHS - 1);
  const prior = half(KPI_HALF_MONTHS, 2 * KPI_HALF_MONTHS - 1);
  const figures = (cs: typeof sorted) => {
    const size = cs.reduce((t, c) => t + c.size, 0);
    const repeaters = cs.reduce((t, c) => t + c.repeaters, 0);
    let revenue = 0;
    for (const c of cs) {
      const elapsed = monthsBetween(c.month, currentMonth);
      for (let k = 0; k <= elapsed; k++)
        revenue += Number(ix.cells.get(`${c.month}#${k}`)?.revenue ?? 0);
    }
    const m3 = cs.filter((c) => monthsBetween(c.month, currentMonth) >= RETENTION_90D_OFFSET);
    const m3Size = m3.reduce((t, c) => t + c.size, 0);
    const m3Alive = m3.reduce(
      (t, c) => t + (ix.survivors.get(c.month)?.[RETENTION_90D_OFFSET] ?? 0),
      0,
    );
    return {
      size,
      repeat: size ? repeaters / size : null,
      arpc: size ? revenue / size : null,
      r90: m3Size ? m3Alive / m3Size : null,
    };
  };
  const r = figures(recent);
  const p = figures(prior);
  const rate = (now: number, before: number | null) =>
    before === null || before === 0 ? null : round4((now - before) / before);
  const pct = (now: number | null, before: number | null) =>
    now === null || before === null ? null : round4(now - before);
  const topCohorts = sorted
    .filter((c) => c.size > 0 && monthsBetween(c.month, currentMonth) >= RETENTION_90D_OFFSET)
    .map((c) => ({
      acquisitionMonth: c.month,
      cohortSize: c.size,
      retention3: round4(survival(ix, c.month, c.size, RETENTION_90D_OFFSET)),
    }))
    .sort(
      (a, b) =>
        b.retention3 - a.retention3 ||
        b.cohortSize - a.cohortSize ||
        (a.acquisitionMonth < b.acquisitionMonth ? 1 : -1),
    )
    .slice(0, TOP_COHORTS);
  return {
    window: {
      from: sorted[0]?.month ?? "",
      to: sorted[sorted.length - 1]?.month ?? "",
    },
    kpis: {
      newCustomers: { value: r.size, delta: rate(r.size, p.size), deltaKind: "rate" },
      repeatOrderRate: {
        value: round4(r.repeat ?? 0),
        delta: pct(r.repeat, p.repeat),
        deltaKind: "pct",
      },
      avgRevenuePerCustomer: {
        value: Math.round((r.arpc ?? 0) * 100) / 100,
        delta: r.arpc === null ? null : rate(r.arpc, p.arpc),
        deltaKind: "rate",
      },
      retention90d: { value: round4(r.r90 ?? 0), delta: pct(r.r90, p.r90), deltaKind: "pct" },
    },
    topCohorts,
  };
}
