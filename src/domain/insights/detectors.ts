import { linearRegression, mean } from "../baselines/stats.ts";
import { formatMoney } from "../summaries/narrative.ts";

/*
 * The notes-for-agent detectors. Each reads plain figures (decimal strings, converted to numbers
 * only for statistics and ratios; amounts in texts are formatted from the strings) and returns
 * at most one note, with an `impact` (money at stake over the note's window) for ranking.
 */

export type NoteKind = "seasonality" | "trend" | "pipeline" | "ar" | "concentration";
export type NoteWindow = "this_month" | "next_4w" | "this_quarter";
export type NoteSeverity = "info" | "warn";

/** A note as served (spec: AgentNote). */
export interface AgentNote {
  kind: NoteKind;
  window: NoteWindow;
  severity: NoteSeverity;
  text: string;
  sourceInsightId?: string;
}

/** A detector's finding, before ranking and redaction. */
export interface DetectedNote {
  kind: NoteKind;
  window: NoteWindow;
  severity: NoteSeverity;
  text: string;
  /** Money at stake over the window, in base currency units; ranks the notes. */
  impact: number;
  /** The contact the text names; `redactedText` is served instead when it is sensitive. */
  subjectContactId?: string;
  redactedText?: string;
}

/** The thresholds, in one place (docs/insights.md). */
export const DETECTOR_RULES = {
  trend: { weeks: 12, maxPValue: 0.05, minChange: 0.1 },
  seasonality: { minDeviation: 0.2, averageMonths: 12 },
  pipeline: { lowCoverage: 0.7, highCoverage: 1.3 },
  ar: { overdueDays: 60, lookbackWeeks: 8, minRise: 0.05, minShare: 0.1 },
  concentration: { infoShare: 0.2, warnShare: 0.35, days: 90 },
  /** Notes served per response. */
  maxNotes: 3,
  /** A warning's impact counts double when ranking. */
  warnWeight: 2,
} as const;

const pct = (x: number) => `${Math.round(Math.abs(x) * 100)}%`;
const num = (s: string) => Number(s);

/**
 * Trend: a linear regression over the last 12 full weeks and the change of the last 4 weeks
 * against the 4 before. A trend is reported when the slope's p-value is below 0.05 and the
 * change is at least 10% in the slope's direction. Falling receipts and rising spending warn;
 * the opposite directions inform. Needs 12 weeks and a non-zero prior 4 weeks.
 */
export function detectTrend(input: {
  metric: "receipts" | "spending";
  /** Weekly totals, oldest first, the last full week last. */
  weekly: readonly string[];
  currency: string;
}): DetectedNote | null {
  const r = DETECTOR_RULES.trend;
  if (input.weekly.length < r.weeks) return null;
  const series = input.weekly.slice(-r.weeks).map(num);
  const last4 = series.slice(-4).reduce((a, b) => a + b, 0);
  const prior4 = series.slice(-8, -4).reduce((a, b) => a + b, 0);
  if (prior4 <= 0) return null;
  const change = (last4 - prior4) / prior4;
  const reg = linearRegression(series);
  if (!(reg.pValue < r.maxPValue) || Math.abs(change) < r.minChange) return null;
  if (Math.sign(change) !== Math.sign(reg.slope)) return null;
  const up = change > 0;
  const bad = input.metric === "receipts" ? !up : up;
  const subject = input.metric === "receipts" ? "Customer receipts are" : "Spending is";
  const verb = input.metric === "receipts" ? "brought in" : "took";
  const last4Text = formatMoney(last4.toFixed(2), input.currency);
  const slope = formatMoney(reg.slope.toFixed(2), input.currency);
  return {
    kind: "trend",
    window: "next_4w",
    severity: bad ? "warn" : "info",
    text:
      `${subject} trending ${up ? "up" : "down"}: the last 4 weeks ${verb} ${last4Text}, ` +
      `${pct(change)} ${up ? "more" : "less"} than the 4 weeks before (12-week slope ${slope} ` +
      `per week, p = ${reg.pValue < 0.001 ? "<0.001" : reg.pValue.toFixed(3)}).`,
    impact: Math.abs(last4 - prior4),
  };
}

const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/**
 * Seasonality: how the same month last year compared with the average month of the 12 full
 * months before the current one. Checked for this month (window `this_month`) and next month
 * (`next_4w`); the larger deviation is reported when it is at least 20%. A dip warns, a lift
 * informs. Needs receipts for the month a year back and all 12 averaging months.
 */
export function detectSeasonality(input: {
  /** Monthly receipts by `YYYY-MM`, full months before the current one (gaps are zero). */
  monthly: ReadonlyMap<string, string>;
  currentMonth: string;
  /** The first month with any data: months before it are unknown, not zero. */
  firstMonth: string | null;
  currency: string;
}): DetectedNote | null {
  const r = DETECTOR_RULES.seasonality;
  const { currentMonth, firstMonth } = input;
  if (firstMonth === null) return null;
  const shift = (month: string, n: number) => {
    const y = Number(month.slice(0, 4));
    const m = Number(month.slice(5, 7)) - 1 + n;
    const yy = y + Math.floor(m / 12);
    const mm = ((m % 12) + 12) % 12;
    return `${yy}-${String(mm + 1).padStart(2, "0")}`;
  };
  const averaging = Array.from({ length: r.averageMonths }, (_, i) => shift(currentMonth, -1 - i));
  if (averaging.some((m) => m < firstMonth)) return null;
  const avg = mean(averaging.map((m) => num(input.monthly.get(m) ?? "0")));
  if (!(avg > 0)) return null;
  let best: { deviation: number; target: string; lastYear: number; window: NoteWindow } | null =
    null;
  for (const [offset, window] of [
    [0, "this_month"],
    [1, "next_4w"],
  ] as const) {
    const target = shift(currentMonth, offset);
    const yearBack = shift(target, -12);
    if (yearBack < firstMonth) continue;
    const lastYear = num(input.monthly.get(yearBack) ?? "0");
    const deviation = lastYear / avg - 1;
    if (
      Math.abs(deviation) >= r.minDeviation &&
      (!best || Math.abs(deviation) > Math.abs(best.deviation))
    ) {
      best = { deviation, target, lastYear, window };
    }
  }
  if (!best) return null;
  const name = MONTH_NAMES[Number(best.target.slice(5, 7)) - 1] ?? best.target;
  const dip = best.deviation < 0;
  return {
    kind: "seasonality",
    window: best.window,
    severity: dip ? "warn" : "info",
    text:
      `Seasonal ${dip ? "dip" : "lift"}: last year, ${name} receipts were ${pct(best.deviation)} ` +
      `${dip ? "below" : "above"} the monthly average (${formatMoney(best.lastYear.toFixed(2), input.currency)} ` +
      `against ${formatMoney(avg.toFixed(2), input.currency)}).`,
    impact: Math.abs(best.lastYear - avg),
  };
}

/**
 * Pipeline: the inflows expected over the next 4 weeks (the forecast's weeks 1–4, or without a
 * forecast the open receivables and pipeline items falling due) against the receipts of the
 * last 4 weeks. Coverage under 70% warns, over 130% informs. Needs receipts in the last 4 weeks.
 */
export function detectPipeline(input: {
  next4wInflow: string;
  last4wReceipts: string;
  currency: string;
}): DetectedNote | null {
  const r = DETECTOR_RULES.pipeline;
  const next = num(input.next4wInflow);
  const last = num(input.last4wReceipts);
  if (!(last > 0)) return null;
  const coverage = next / last;
  if (coverage >= r.lowCoverage && coverage <= r.highCoverage) return null;
  const low = coverage < r.lowCoverage;
  return {
    kind: "pipeline",
    window: "next_4w",
    severity: low ? "warn" : "info",
    text:
      `Inflows expected over the next 4 weeks (${formatMoney(input.next4wInflow, input.currency)}) ` +
      `are ${pct(coverage - 1)} ${low ? "below" : "above"} the last 4 weeks' receipts ` +
      `(${formatMoney(input.last4wReceipts, input.currency)}).`,
    impact: Math.abs(next - last),
  };
}

/**
 * AR: the share of receivables more than 60 days overdue now against 8 weeks ago. Reported
 * (warn) when it rose by at least 5 percentage points to at least 10%.
 */
export function detectAr(input: {
  totalNow: string;
  over60Now: string;
  totalThen: string;
  over60Then: string;
  currency: string;
}): DetectedNote | null {
  const r = DETECTOR_RULES.ar;
  const totalNow = num(input.totalNow);
  if (!(totalNow > 0)) return null;
  const shareNow = num(input.over60Now) / totalNow;
  const totalThen = num(input.totalThen);
  const shareThen = totalThen > 0 ? num(input.over60Then) / totalThen : 0;
  if (shareNow < r.minShare || shareNow - shareThen < r.minRise) return null;
  return {
    kind: "ar",
    window: "this_month",
    severity: "warn",
    text:
      `Receivables more than 60 days overdue grew from ${pct(shareThen)} to ${pct(shareNow)} of ` +
      `all receivables over the last 8 weeks (${formatMoney(input.over60Now, input.currency)} ` +
      `of ${formatMoney(input.totalNow, input.currency)}).`,
    impact: (shareNow - shareThen) * totalNow,
  };
}

/**
 * Concentration: the top customer's share of customer receipts over the last 90 days. At least
 * 20% informs, at least 35% warns. The text names the customer; the redacted text says
 * "Sensitive contact" instead.
 */
export function detectConcentration(input: {
  top: { contactId: string; name: string; amount: string } | null;
  total: string;
  currency: string;
}): DetectedNote | null {
  const r = DETECTOR_RULES.concentration;
  const total = num(input.total);
  if (!input.top || !(total > 0)) return null;
  const share = num(input.top.amount) / total;
  if (share < r.infoShare) return null;
  const sentence = (name: string) =>
    `${name} accounted for ${pct(share)} of customer receipts over the last 90 days ` +
    `(${formatMoney(input.top?.amount ?? "0", input.currency)} of ` +
    `${formatMoney(input.total, input.currency)}).`;
  return {
    kind: "concentration",
    window: "this_quarter",
    severity: share >= r.warnShare ? "warn" : "info",
    text: sentence(input.top.name),
    redactedText: sentence("Sensitive contact"),
    subjectContactId: input.top.contactId,
    impact: num(input.top.amount) * share,
  };
}

/** Ranks notes by impact (warnings weighted double), kind as the tie-break; keeps the top 3. */
export function rankNotes<N extends { severity: NoteSeverity; impact: number; kind: NoteKind }>(
  notes: readonly N[],
): N[] {
  const order: NoteKind[] = ["ar", "trend", "pipeline", "seasonality", "concentration"];
  const score = (n: N) => n.impact * (n.severity === "warn" ? DETECTOR_RULES.warnWeight : 1);
  return [...notes]
    .sort((a, b) => score(b) - score(a) || order.indexOf(a.kind) - order.indexOf(b.kind))
    .slice(0, DETECTOR_RULES.maxNotes);
}
