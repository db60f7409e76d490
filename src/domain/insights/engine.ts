import {
  type DetectedNote,
  detectAr,
  detectConcentration,
  detectPipeline,
  detectSeasonality,
  detectTrend,
  rankNotes,
} from "./detectors.ts";

/** Everything the detectors read, as the insight service loads it. */
export interface InsightInput {
  currency: string;
  /** `YYYY-MM` of the organisation's today. */
  currentMonth: string;
  /** Weekly customer receipts and spending, oldest first, the last full week last. */
  weeklyReceipts: string[];
  weeklySpending: string[];
  /** Monthly customer receipts of full months before the current one. */
  monthlyReceipts: Map<string, string>;
  firstMonth: string | null;
  next4wInflow: string | null;
  last4wReceipts: string;
  ar: { totalNow: string; over60Now: string; totalThen: string; over60Then: string };
  concentration: { top: { contactId: string; name: string; amount: string } | null; total: string };
}

/** Runs every detector and keeps the 3 most impactful notes, ranked. */
export function detectNotes(input: InsightInput): DetectedNote[] {
  const c = input.currency;
  const found = [
    detectTrend({ metric: "receipts", weekly: input.weeklyReceipts, currency: c }),
    detectTrend({ metric: "spending", weekly: input.weeklySpending, currency: c }),
    detectSeasonality({
      monthly: input.monthlyReceipts,
      currentMonth: input.currentMonth,
      firstMonth: input.firstMonth,
      currency: c,
    }),
    input.next4wInflow === null
      ? null
      : detectPipeline({
          next4wInflow: input.next4wInflow,
          last4wReceipts: input.last4wReceipts,
          currency: c,
        }),
    detectAr({ ...input.ar, currency: c }),
    detectConcentration({ ...input.concentration, currency: c }),
  ].filter((n): n is DetectedNote => n !== null);
  // Two trend notes (receipts and spending) may both fire; ranking keeps the larger first.
  return rankNotes(found);
}
