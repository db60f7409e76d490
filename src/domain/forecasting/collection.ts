import { dayNumber } from "./dates.ts";
import { inHistoryOrder, NO_DAY, salesByContact, salesDays } from "./sales-history.ts";
import type { SalesHistoryEntry } from "./types.ts";

/**
 * When customers actually pay: lateness (payment date − due date, in days; negative = early)
 * of paid invoices, per customer and across the organisation. An open receivable is expected on
 * its due date plus the median lateness *among past payments later than this invoice already
 * is* (the conditional median: an invoice 20 days overdue at the end of today is compared with
 * payments that came more than 20 days late). docs/forecast.md, "Receivable timing".
 */

/** Paid invoices a customer needs before their own habit is used (else the organisation's). */
export const MIN_OWN_PAYMENTS = 3;
/** A customer's habit: their most recent paid invoices. */
const RECENT_PAYMENTS = 12;

/**
 * An invoice still unpaid this many days after its due date counts as one that was not paid
 * (within a forecast's reach: the 13 weeks): it enters the spread of later receivables as a
 * share that never arrives. Invoices open for less are still undecided and left out.
 */
export const UNPAID_AFTER_DAYS = 91;

export interface CollectionModel {
  /** Sorted lateness of each customer's last RECENT_PAYMENTS paid invoices. */
  byContact: Map<string, Int32Array>;
  /** Sorted lateness of every paid invoice of the organisation. */
  all: Int32Array;
  /** Per customer and overall: days overdue (sorted) of invoices unpaid UNPAID_AFTER_DAYS on. */
  unpaidByContact: Map<string, Int32Array>;
  unpaidAll: Int32Array;
  /**
   * Each pool's weights for the invoices still open and undecided (Kaplan–Meier, `kaplanMeier`):
   * absent when the pool has none (every payment then weighs 1).
   */
  weightsByContact: Map<string, PoolWeights>;
  weightsAll: PoolWeights | null;
  /** Per customer: days overdue (sorted) of their invoices still open and undecided. */
  openByContact: Map<string, Int32Array>;
}

/**
 * What the invoices still open (less than UNPAID_AFTER_DAYS overdue) say: each was not paid by
 * today, so its lateness is known only to exceed how overdue it is (a censored observation).
 * Left out, the paid invoices alone make customers look quicker than they are (a slow invoice of
 * last month is still open; a quick one is already in the pool). The Kaplan–Meier estimate
 * keeps them: each open invoice's weight passes in equal parts to every observation later than
 * it (paid later, never paid, or open longer). `cumulative[i]`: the weight of the pool's first i
 * paid values (in sorted order); `unpaid`: the weight each never-paid invoice carries.
 */
export interface PoolWeights {
  cumulative: Float64Array;
  unpaid: number;
}

/**
 * The Kaplan–Meier weights of a pool: `paid` sorted lateness values, `open` the days overdue of
 * its invoices still open, `unpaid` how many were never paid (after every value). Null without
 * open invoices (every weight 1).
 */
export function kaplanMeier(
  paid: Int32Array,
  open: readonly number[],
  unpaid: number,
): PoolWeights | null {
  if (open.length === 0) return null;
  const censored = new Int32Array(open).sort();
  const cumulative = new Float64Array(paid.length + 1);
  let remaining = paid.length + censored.length + unpaid;
  let weight = 1;
  let c = 0;
  for (let i = 0; i < paid.length; i++) {
    const v = paid[i] ?? 0;
    // An invoice open at c days overdue was not paid by c days late: values ≤ c come first.
    while (c < censored.length && (censored[c] ?? 0) < v) {
      remaining -= 1;
      if (remaining > 0) weight += weight / remaining;
      c += 1;
    }
    cumulative[i + 1] = (cumulative[i] ?? 0) + weight;
    remaining -= 1;
  }
  while (c < censored.length) {
    remaining -= 1;
    if (remaining > 0) weight += weight / remaining;
    c += 1;
  }
  return { cumulative, unpaid: weight };
}

/** Builds the model from sales history (paid invoices with a due date). */
export function fitCollection(
  history: readonly SalesHistoryEntry[],
  today?: string,
): CollectionModel {
  const todayDay = today === undefined ? null : dayNumber(today);
  const parsed = salesDays(history);
  const { contactIds, start, entries } = salesByContact(history);
  // Every pool's values: the organisation's, and each customer's as met contact by contact.
  const lates: number[] = [];
  const unpaid: number[] = [];
  const open: number[] = [];
  type Own = { first: number; contactId: string; value: Int32Array };
  const paidOwn: Own[] = [];
  const unpaidOwn: Own[] = [];
  const openOwn: Own[] = [];
  const openLists = new Map<string, number[]>();
  for (let k = 0; k < contactIds.length; k++) {
    const contactId = contactIds[k] as string;
    // This contact's paid invoices (history indices), never-paid and open ones' days overdue.
    const paidIdx: number[] = [];
    const unpaidList: number[] = [];
    const openList: number[] = [];
    let firstUnpaid = -1;
    let firstOpen = -1;
    for (let p = start[k] ?? 0; p < (start[k + 1] ?? 0); p++) {
      const i = entries[p] ?? 0;
      const e = history[i] as SalesHistoryEntry;
      const due = parsed.due[i] ?? NO_DAY;
      if (!e.paidDate && e.dueDate && todayDay !== null) {
        const overdue = todayDay - due;
        if (overdue < UNPAID_AFTER_DAYS) {
          open.push(overdue);
          if (firstOpen < 0) firstOpen = i;
          openList.push(overdue);
          continue;
        }
        unpaid.push(overdue);
        if (firstUnpaid < 0) firstUnpaid = i;
        unpaidList.push(overdue);
        continue;
      }
      if (!e.paidDate || !e.dueDate) continue;
      lates.push((parsed.paid[i] ?? NO_DAY) - due);
      paidIdx.push(i);
    }
    if (paidIdx.length > 0) {
      const first = paidIdx[0] ?? 0;
      // The most recent by issue date (invoices of one day in the history's order).
      paidIdx.sort((a, b) => (parsed.issue[a] ?? 0) - (parsed.issue[b] ?? 0) || a - b);
      const recent = paidIdx.slice(-RECENT_PAYMENTS);
      const value = new Int32Array(recent.length);
      recent.forEach((i, j) => {
        value[j] = (parsed.paid[i] ?? NO_DAY) - (parsed.due[i] ?? NO_DAY);
      });
      paidOwn.push({ first, contactId, value: value.sort() });
    }
    if (unpaidList.length > 0) {
      const value = new Int32Array(unpaidList.slice(-RECENT_PAYMENTS)).sort();
      unpaidOwn.push({ first: firstUnpaid, contactId, value });
    }
    if (openList.length > 0) {
      openOwn.push({ first: firstOpen, contactId, value: new Int32Array(openList).sort() });
      openLists.set(contactId, openList);
    }
  }
  const byContact = inHistoryOrder(paidOwn);
  const unpaidSorted = inHistoryOrder(unpaidOwn);
  const openByContact = inHistoryOrder(openOwn);
  const all = new Int32Array(lates).sort();
  const unpaidAll = new Int32Array(unpaid).sort();
  const weightsByContact = new Map<string, PoolWeights>();
  for (const id of openByContact.keys()) {
    const w = kaplanMeier(
      byContact.get(id) ?? new Int32Array(0),
      openLists.get(id) ?? [],
      unpaidSorted.get(id)?.length ?? 0,
    );
    if (w) weightsByContact.set(id, w);
  }
  return {
    byContact,
    all,
    unpaidByContact: unpaidSorted,
    unpaidAll,
    weightsByContact,
    weightsAll: kaplanMeier(all, open, unpaidAll.length),
    openByContact,
  };
}

/** First index of `sorted` holding a value ≥ x. */
export function lowerBound(sorted: Int32Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] ?? 0) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The expected lateness of an open receivable already `overdueDays` past its due date (negative
 * when not yet due): the median of the past lateness values > overdueDays, from the customer's
 * own payments when they have MIN_OWN_PAYMENTS and one at least this late, else the
 * organisation's. `undefined` when there is no history at all; `null` when no payment of the
 * organisation was ever this late (a doubtful receivable).
 */
export function expectedLateness(
  model: CollectionModel,
  contactId: string | null,
  overdueDays: number,
): number | null | undefined {
  const own = contactId ? model.byContact.get(contactId) : undefined;
  if (own && own.length >= MIN_OWN_PAYMENTS) {
    const m = conditionalMedian(own, overdueDays);
    if (m !== null) return m;
  }
  if (model.all.length === 0) return undefined;
  return conditionalMedian(model.all, overdueDays);
}

/**
 * The median of the values later than x of a sorted array (the lower middle), or null when
 * none. Strictly later: the books stand at the end of today, so a payment that would have come
 * exactly `overdueDays` late (today) has not.
 */
function conditionalMedian(sorted: Int32Array, x: number): number | null {
  const from = lowerBound(sorted, x + 1);
  if (from >= sorted.length) return null;
  return sorted[from + ((sorted.length - from - 1) >> 1)] ?? null;
}

/** The median lateness of a customer's past payments (theirs, else the organisation's), ≥ 0. */
export function medianLateness(model: CollectionModel, contactId: string | null): number {
  const own = contactId ? model.byContact.get(contactId) : undefined;
  const pool = own && own.length > 0 ? own : model.all;
  if (pool.length === 0) return 0;
  const mid = pool.length >> 1;
  const m = pool.length % 2 ? (pool[mid] ?? 0) : ((pool[mid - 1] ?? 0) + (pool[mid] ?? 0)) / 2;
  return Math.max(0, Math.round(m));
}

/** How a receivable is spread: past lateness values later than today, and the unpaid share. */
export interface LatenessSpread {
  /** Sorted lateness of past payments later than the receivable already is. */
  values: Int32Array;
  /** Past invoices at least this overdue that were never paid (UNPAID_AFTER_DAYS on). */
  unpaid: number;
  /** Whose history: the customer's own or the organisation's. */
  own: boolean;
  /** Not their own: the customers like them (similar-customers.ts), not the whole organisation. */
  similar?: true;
  /**
   * The pool's Kaplan–Meier weights (null: each value and unpaid invoice weighs 1), and where
   * `values` starts in the pool (weights.cumulative is indexed on the whole pool).
   */
  weights: PoolWeights | null;
  offset: number;
  /**
   * When a value stands for several payments (the similar customers' mixture, by day): the
   * cumulative count of payments, indexed like weights.cumulative. Without it each value is one.
   */
  counts?: Int32Array;
}

/**
 * The past lateness values an open receivable `overdueDays` past due is spread over: the
 * customer's (or the organisation's) payments later than that, sorted, with the count of their
 * invoices at least this overdue that were never paid; the customer's own when they have
 * MIN_OWN_PAYMENTS paid or never-paid invoices and one of them this late (a customer who never
 * paid one this late: values empty, every share unpaid), or, with `ownLater` above 1, that many
 * paid this late (never-paid ones then do not count).
 * `undefined` without history, `null` when doubtful (nothing ever this late).
 *
 * `ownLater`: how many of the contact's own past values later than today their record needs to
 * decide alone. Open bills pass MIN_OWN_PAYMENTS (compute-forecast.ts): a supplier who paid one
 * bill of twelve late would otherwise have every overdue bill placed on that one day. A bill is
 * owed, so its spread has no never-paid share: a supplier's unpaid bills cannot stand in for
 * paid ones (counted, one unpaid bill kept every overdue bill of its supplier on its due date).
 */
export function latenessSpread(
  model: CollectionModel,
  contactId: string | null,
  overdueDays: number,
  ownLater = 1,
): LatenessSpread | null | undefined {
  const own = contactId ? model.byContact.get(contactId) : undefined;
  const ownUnpaid = contactId ? model.unpaidByContact.get(contactId) : undefined;
  // A customer whose invoices went unpaid has a record of their own even with few payments: a
  // bad debtor's next invoice is judged by their history, not by the organisation's payers.
  if ((own?.length ?? 0) + (ownUnpaid?.length ?? 0) >= MIN_OWN_PAYMENTS) {
    const offset = own ? lowerBound(own, overdueDays + 1) : 0;
    const values = own ? own.subarray(offset) : new Int32Array(0);
    const unpaid = countFrom(ownUnpaid, overdueDays);
    const weights = (contactId && model.weightsByContact.get(contactId)) || null;
    // With `ownLater` (a bill: owed, so never-paid ones are no share of its spread) only values
    // paid this late count; a receivable's never-paid invoices decide too.
    const decides = ownLater > 1 ? values.length >= ownLater : values.length + unpaid > 0;
    if (decides) return { values, unpaid, own: true, weights, offset };
  }
  if (model.all.length === 0) return undefined;
  // Strictly later than today (conditionalMedian says why).
  const from = lowerBound(model.all, overdueDays + 1);
  return from < model.all.length
    ? {
        values: model.all.subarray(from),
        unpaid: countFrom(model.unpaidAll, overdueDays),
        own: false,
        weights: model.weightsAll,
        offset: from,
      }
    : null;
}

/**
 * The weight of a spread's values [from, to) (indices into `values`), and of its unpaid
 * invoices: counts without weights.
 */
export function spreadWeight(s: LatenessSpread, from: number, to: number): number {
  if (!s.weights) return to - from;
  const c = s.weights.cumulative;
  return (c[s.offset + to] ?? 0) - (c[s.offset + from] ?? 0);
}
/** How many past payments values from..to of a spread stand for. */
export function spreadCount(s: LatenessSpread, from: number, to: number): number {
  if (!s.counts) return to - from;
  return (s.counts[s.offset + to] ?? 0) - (s.counts[s.offset + from] ?? 0);
}
export function unpaidWeight(s: LatenessSpread): number {
  return s.weights ? s.unpaid * s.weights.unpaid : s.unpaid;
}

/** How many values of a sorted array are ≥ x (0 without an array). */
function countFrom(sorted: Int32Array | undefined, x: number): number {
  return sorted ? sorted.length - lowerBound(sorted, x) : 0;
}
