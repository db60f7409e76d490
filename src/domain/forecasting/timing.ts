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
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1
    ? (s[m] as number)
    : Math.round(((s[m - 1] as number) + (s[m] as number)) / 2);
}

function learn(contactId: string | null, list: readonly PurchaseOrderPayment[]): LearnedLag | null {
  const recent = [...list]
    .sort((a, b) =>
      a.deliveryDate < b.deliveryDate ? -1 : a.deliveryDate > b.deliveryDate ? 1 : 0,
    )
    .slice(-LAST_ORDERS);
  if (recent.length < MIN_LAG_OBSERVATIONS) return null;
  return {
    contactId,
    lagDays: median(recent.map((p) => dayNumber(p.paidDate) - dayNumber(p.deliveryDate))),
    observations: recent.length,
    from: recent[0]?.deliveryDate ?? "",
    to: recent[recent.length - 1]?.deliveryDate ?? "",
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
  for (const [contactId, list] of [...byContact].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const lag = learn(contactId, list);
    if (lag) bySupplier.set(contactId, lag);
  }
  return { bySupplier, organisation: learn(null, history) };
}

/** The lag a supplier's open order is paid after its delivery, with its evidence (null: 0 days). */
export function purchaseOrderLag(
  timing: PurchaseOrderTiming,
  contactId: string | null,
): LearnedLag | null {
  return (contactId ? timing.bySupplier.get(contactId) : undefined) ?? timing.organisation;
}

/** The evidence in words, for the line's note and `forecast explain`. */
export function describeLag(lag: LearnedLag | null): string {
  if (!lag) return "paid at delivery (no paid orders to learn from)";
  const whose = lag.contactId ? "this supplier's" : "the organisation's";
  return `paid ${lag.lagDays} days after delivery (${whose} median of ${lag.observations} paid orders delivered ${lag.from} to ${lag.to})`;
}
