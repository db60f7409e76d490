import { dayNumber } from "./dates.ts";
import type { PurchaseOrderPayment } from "./types.ts";

/**
 * Timing learned from the business's own history: how long after delivery each supplier's
 * purchase orders are paid (the order turns into a bill, the bill is paid on its terms). Each
 * learned value keeps its evidence (observations and the window they span), shown by
 * `forecast explain`. docs/forecast.md, "Learned timing".
 */

/** Paid orders needed before a supplier's own lag is used (else the organisation's, else 0). */
export const MIN_LAG_OBSERVATIONS = 3;
/** The latest paid orders a lag is the median of. */
const LAST_ORDERS = 12;

/** One learned lag and what it was learned from. */
export interface LearnedLag {
  /** Supplier contact id, or null for the organisation-wide fallback. */
  contactId: string | null;
  /** Median days from delivery to the bill's payment. */
  lagDays: number;
  observations: number;
  /** Delivery dates of the first and last orders used. */
  from: string;
  to: string;
}

export interface PurchaseOrderTiming {
  bySupplier: Map<string, LearnedLag>;
  organisation: LearnedLag | null;
  /** The lags (days, sorted) each learned median was taken from, by supplier and overall. */
  lagsBySupplier: Map<string, Int32Array>;
  organisationLags: Int32Array;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1
    ? (s[m] as number)
    : Math.round(((s[m - 1] as number) + (s[m] as number)) / 2);
}

function learn(
  contactId: string | null,
  list: readonly PurchaseOrderPayment[],
): { lag: LearnedLag; lags: Int32Array } | null {
  const recent = [...list]
    .sort((a, b) =>
      a.deliveryDate < b.deliveryDate ? -1 : a.deliveryDate > b.deliveryDate ? 1 : 0,
    )
    .slice(-LAST_ORDERS);
  if (recent.length < MIN_LAG_OBSERVATIONS) return null;
  const lags = recent.map((p) => dayNumber(p.paidDate) - dayNumber(p.deliveryDate));
  return {
    lag: {
      contactId,
      lagDays: median(lags),
      observations: recent.length,
      from: recent[0]?.deliveryDate ?? "",
      to: recent[recent.length - 1]?.deliveryDate ?? "",
    },
    lags: new Int32Array(lags).sort(),
  };
}

/** Per supplier (its last 12 paid orders, at least 3) and for the organisation (all of them). */
export function fitPurchaseOrderTiming(
  history: readonly PurchaseOrderPayment[],
): PurchaseOrderTiming {
  const byContact = new Map<string, PurchaseOrderPayment[]>();
  for (const p of history) {
    const l = byContact.get(p.contactId);
    if (l) l.push(p);
    else byContact.set(p.contactId, [p]);
  }
  const bySupplier = new Map<string, LearnedLag>();
  const lagsBySupplier = new Map<string, Int32Array>();
  for (const [contactId, list] of [...byContact].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const learnt = learn(contactId, list);
    if (!learnt) continue;
    bySupplier.set(contactId, learnt.lag);
    lagsBySupplier.set(contactId, learnt.lags);
  }
  const organisation = learn(null, history);
  return {
    bySupplier,
    organisation: organisation?.lag ?? null,
    lagsBySupplier,
    organisationLags: organisation?.lags ?? new Int32Array(0),
  };
}

/**
 * When an open order delivered `elapsed` days ago (negative: not yet delivered) is expected to
 * be paid, in days after delivery: the median of the past lags longer than `elapsed` (it is still
 * unbilled, so it was not paid by today), the supplier's when they have one that long, else the
 * organisation's. Without history, 0 (at delivery); null when no past order was ever paid this
 * long after delivery (doubtful: left out, as a receivable later than any payment is).
 */
export function openOrderLag(
  timing: PurchaseOrderTiming,
  contactId: string | null,
  elapsed: number,
): { lag: LearnedLag | null; lagDays: number } | null {
  const later = (sorted: Int32Array | undefined) => {
    if (!sorted) return null;
    let from = 0;
    while (from < sorted.length && (sorted[from] ?? 0) <= elapsed) from++;
    return from < sorted.length ? (sorted[from + ((sorted.length - from - 1) >> 1)] ?? null) : null;
  };
  const own = contactId ? timing.bySupplier.get(contactId) : undefined;
  const ownLag = contactId ? later(timing.lagsBySupplier.get(contactId)) : null;
  if (own && ownLag !== null) return { lag: own, lagDays: ownLag };
  if (!timing.organisation) return { lag: null, lagDays: 0 };
  const orgLag = later(timing.organisationLags);
  return orgLag === null ? null : { lag: timing.organisation, lagDays: orgLag };
}

/** The evidence in words, for the line's note and `forecast explain`. */
export function describeLag(lag: LearnedLag | null, lagDays = lag?.lagDays ?? 0): string {
  if (!lag) return "paid at delivery (no paid orders to learn from)";
  const whose = lag.contactId ? "this supplier's" : "the organisation's";
  const orders = `${lag.observations} paid orders delivered ${lag.from} to ${lag.to}`;
  // The median of all the orders, or (an order already later than some) of the later ones.
  return lagDays === lag.lagDays
    ? `paid ${lagDays} days after delivery (${whose} median of ${orders})`
    : `paid ${lagDays} days after delivery (${whose} median, among ${orders}, of those paid later than this one already is)`;
}
