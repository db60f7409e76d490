import { baseCents, type Cents, medianCents } from "./cents.ts";
import { addDays, addMonths, dateOf, dayNumber } from "./dates.ts";
import type { RecurringHistoryEntry } from "./types.ts";

/**
 * Recurring cash movements detected from history: payroll, rent, subscriptions, utilities, bank
 * fees, regular takings. History entries are grouped into streams (same kind, contact and
 * account); a stream is recurring when its intervals sit on a known cadence, and it is then
 * projected forward from its last occurrence. docs/forecast.md, "Recurring", states the rules.
 */

/** A cadence: its nominal length, the window a median interval must fall in, and its step. */
export interface Cadence {
  name: "weekly" | "fortnightly" | "monthly" | "quarterly" | "yearly";
  nominalDays: number;
  min: number;
  max: number;
  /** Calendar step: days for weekly/fortnightly, months otherwise. */
  step: { days: number } | { months: number };
  /** How late a missed occurrence may be and still be expected (days). */
  graceDays: number;
}

export const CADENCES: readonly Cadence[] = [
  { name: "weekly", nominalDays: 7, min: 6, max: 8, step: { days: 7 }, graceDays: 1 },
  { name: "fortnightly", nominalDays: 14, min: 12, max: 16, step: { days: 14 }, graceDays: 2 },
  { name: "monthly", nominalDays: 30.44, min: 26, max: 35, step: { months: 1 }, graceDays: 4 },
  { name: "quarterly", nominalDays: 91.31, min: 80, max: 102, step: { months: 3 }, graceDays: 10 },
  { name: "yearly", nominalDays: 365.25, min: 350, max: 380, step: { months: 12 }, graceDays: 15 },
];

/** Intervals considered: the most recent ones, so a changed habit wins quickly. */
const RECENT_INTERVALS = 8;
/** Amounts considered: the median of the last three occurrences follows raises and price changes. */
const RECENT_AMOUNTS = 3;
/** Coefficient of variation of the intervals above which a stream is not regular. */
const MAX_INTERVAL_CV = 0.35;

/** A detected recurring stream. */
export interface RecurringStream {
  /** `rec_<8 hex>`: stable for the same kind, contact and account. */
  id: string;
  kind: RecurringHistoryEntry["kind"];
  direction: "in" | "out";
  contactId: string | null;
  contactName: string | null;
  accountId: string | null;
  cadence: Cadence;
  occurrences: number;
  /** The last occurrence's date (a bill's issue date; a bank line's date). */
  lastDate: string;
  /** Day of the month of the last occurrence, kept by monthly steps. */
  anchorDay: number;
  /** Median of the last three amounts, base currency, positive. */
  amount: Cents;
  /**
   * Bills: median days from issue to payment of its last 12 paid bills (3 or more), else from
   * issue to due date; bank lines: 0.
   */
  termDays: number;
  /** Every occurrence, as day numbers, oldest first. */
  days: number[];
}

/** One projected occurrence of a stream. */
export interface RecurringOccurrence {
  itemId: string;
  stream: RecurringStream;
  /** The occurrence's own date (a bill's issue date). */
  date: string;
  /** When the cash moves (bills: date + term). */
  cashDate: string;
}

/** FNV-1a, 32 bits, as 8 hex digits: short stable ids for streams. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** Paid bills needed before a bill stream is projected on its own payment lag. */
const MIN_PAID_BILLS = 3;

/**
 * Days from a bill's issue to its cash: the median lag of the stream's last 12 paid bills (this
 * business pays some early, some late), else the median of its terms (issue to due date), else 0.
 */
function billTerm(paidLags: readonly number[], terms: readonly number[]): number {
  const lags = paidLags.length >= MIN_PAID_BILLS ? paidLags : terms;
  return lags.length > 0 ? Math.max(0, Math.round(median(lags.slice(-12)))) : 0;
}

/** The cadence a stream's intervals sit on, or null when they are not regular. */
export function classifyIntervals(intervals: readonly number[]): Cadence | null {
  if (intervals.length === 0) return null;
  const recent = intervals.slice(-RECENT_INTERVALS);
  const med = median(recent);
  const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
  const cadence = CADENCES.find((c) => med >= c.min && med <= c.max);
  if (!cadence || mean < cadence.min || mean > cadence.max) return null;
  // Two dated occurrences are enough only for a yearly charge (two years of history hold two).
  if (recent.length < 2 && cadence.name !== "yearly") return null;
  const variance = recent.reduce((a, b) => a + (b - mean) ** 2, 0) / recent.length;
  if (Math.sqrt(variance) / mean > MAX_INTERVAL_CV) return null;
  return cadence;
}

/** The date `k` steps of `cadence` after `from`. */
export function stepDate(from: string, cadence: Cadence, k: number, anchorDay: number): string {
  return "days" in cadence.step
    ? addDays(from, cadence.step.days * k)
    : addMonths(from, cadence.step.months * k, anchorDay);
}

/**
 * Groups history into streams and keeps the regular, still-running ones (the last occurrence
 * no later than 1.5 cadences plus grace before today). Deterministic: streams come out sorted
 * by id.
 */
export function detectRecurring(
  history: readonly RecurringHistoryEntry[],
  today: string,
  baseCurrency: string,
): RecurringStream[] {
  interface Group {
    kind: RecurringHistoryEntry["kind"];
    contactId: string | null;
    contactName: string | null;
    accountId: string | null;
    byDate: Map<number, Cents>;
    terms: number[];
    /** Bills: days from issue to full payment, of those paid. */
    paidLags: number[];
  }
  const groups = new Map<string, Group>();
  for (const e of history) {
    const who = e.contactId ?? `name:${(e.contactName ?? "").trim().toLowerCase()}`;
    const key = `${e.kind}|${who}|${e.accountId ?? ""}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        kind: e.kind,
        contactId: e.contactId,
        contactName: e.contactName,
        accountId: e.accountId,
        byDate: new Map(),
        terms: [],
        paidLags: [],
      };
      groups.set(key, g);
    }
    const day = dayNumber(e.date);
    const cents = baseCents(e.amount, e.currency, baseCurrency, e.currencyRate);
    // Two lines on one day (a split payment) are one occurrence.
    g.byDate.set(day, (g.byDate.get(day) ?? 0) + cents);
    if (e.kind === "bill" && e.dueDate) g.terms.push(dayNumber(e.dueDate) - day);
    if (e.kind === "bill" && e.paidDate) g.paidLags.push(dayNumber(e.paidDate) - day);
  }
  const todayDay = dayNumber(today);
  const streams: RecurringStream[] = [];
  // One contact and account may carry two obligations (a tax office's monthly withholding and
  // quarterly return): a group that is not regular as a whole is split by amount at its widest
  // gap (the larger part at least twice the smaller) and each part is judged on its own.
  const candidates: [string, Group][] = [];
  for (const [key, g] of groups) {
    const days = [...g.byDate.keys()].sort((a, b) => a - b);
    const intervals = days.slice(1).map((d, i) => d - (days[i] ?? d));
    if (days.length >= 6 && classifyIntervals(intervals) === null) {
      const split = splitByAmount(g.byDate);
      if (split) {
        for (const [part, byDate] of split) candidates.push([`${key}|${part}`, { ...g, byDate }]);
        continue;
      }
    }
    candidates.push([key, g]);
  }
  for (const [key, g] of candidates) {
    const days = [...g.byDate.keys()].sort((a, b) => a - b);
    if (days.length < 2) continue;
    const intervals = days.slice(1).map((d, i) => d - (days[i] ?? d));
    const cadence = classifyIntervals(intervals);
    if (!cadence) continue;
    const last = days[days.length - 1] ?? 0;
    if (todayDay - last > cadence.nominalDays * 1.5 + cadence.graceDays) continue;
    const amounts = days.slice(-RECENT_AMOUNTS).map((d) => g.byDate.get(d) ?? 0);
    const amount = medianCents(amounts);
    if (amount <= 0) continue;
    const lastDate = dateOf(last);
    streams.push({
      id: `rec_${shortHash(key)}`,
      kind: g.kind,
      direction: g.kind === "receive" ? "in" : "out",
      contactId: g.contactId,
      contactName: g.contactName,
      accountId: g.accountId,
      cadence,
      occurrences: days.length,
      lastDate,
      anchorDay: Number(lastDate.slice(8, 10)),
      amount,
      termDays: billTerm(g.paidLags, g.terms),
      days,
    });
  }
  return streams.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Splits occurrences into smaller and larger amounts at the widest ratio between neighbouring
 * sorted amounts, when the larger part's smallest is at least twice the smaller part's largest
 * and each part has 3 occurrences or more; null otherwise.
 */
function splitByAmount(byDate: ReadonlyMap<number, Cents>): [string, Map<number, Cents>][] | null {
  const amounts = [...new Set(byDate.values())].filter((a) => a > 0).sort((a, b) => a - b);
  let best = 0;
  let at = -1;
  for (let i = 1; i < amounts.length; i++) {
    const ratio = (amounts[i] as number) / (amounts[i - 1] as number);
    if (ratio > best) {
      best = ratio;
      at = i;
    }
  }
  if (best < 2 || at < 0) return null;
  const threshold = amounts[at] as number;
  const low = new Map<number, Cents>();
  const high = new Map<number, Cents>();
  for (const [d, a] of byDate) (a >= threshold ? high : low).set(d, a);
  if (low.size < 3 || high.size < 3) return null;
  return [
    ["amount:low", low],
    ["amount:high", high],
  ];
}

/**
 * Quarterly and yearly charges follow the calendar more than a fixed step (a tax office's
 * quarterly return due on the 28th of the next month but the 28th of February for December):
 * when the stream has an occurrence about a year before `candidate` (within half a quarter),
 * the occurrence falls on that date a year later. Otherwise on the step's date.
 */
export function calendarDate(stream: RecurringStream, candidate: string): string {
  if (stream.cadence.name !== "quarterly" && stream.cadence.name !== "yearly") return candidate;
  const target = dayNumber(addMonths(candidate, -12));
  let best: number | undefined;
  for (const d of stream.days) {
    if (Math.abs(d - target) > 45) continue;
    if (best === undefined || Math.abs(d - target) < Math.abs(best - target)) best = d;
  }
  return best === undefined ? candidate : addMonths(dateOf(best), 12);
}

/** An open bill that can stand for a projected occurrence. */
export interface OpenBillRef {
  contactId: string | null;
  issueDate: string | null;
  cashDate: string;
}

/**
 * The occurrences of `streams` whose cash moves from `today − grace` to `untilDate`, skipping
 * each one an open bill of the same contact already represents: a bill issued after the
 * stream's last occurrence, and issued or falling due within half a cadence of the occurrence
 * (each bill stands for one occurrence at most). A bill that is itself the stream's last
 * occurrence is not a candidate: projection already starts after it.
 * Occurrences come out in stream order, then date order.
 */
export function projectRecurring(
  streams: readonly RecurringStream[],
  today: string,
  untilDate: string,
  openBills: readonly OpenBillRef[],
): { occurrences: RecurringOccurrence[]; skipped: RecurringOccurrence[] } {
  const todayDay = dayNumber(today);
  const until = dayNumber(untilDate);
  const billsByContact = new Map<string, { bill: OpenBillRef; used: boolean }[]>();
  for (const bill of openBills) {
    if (!bill.contactId) continue;
    const list = billsByContact.get(bill.contactId) ?? [];
    list.push({ bill, used: false });
    billsByContact.set(bill.contactId, list);
  }
  const occurrences: RecurringOccurrence[] = [];
  const skipped: RecurringOccurrence[] = [];
  for (const stream of streams) {
    const half = stream.cadence.nominalDays / 2;
    const lastDay = dayNumber(stream.lastDate);
    const bills = (stream.contactId ? (billsByContact.get(stream.contactId) ?? []) : []).filter(
      (b) => b.bill.issueDate === null || dayNumber(b.bill.issueDate) > lastDay,
    );
    let previous = lastDay;
    for (let k = 1; k < 1000; k++) {
      const date = calendarDate(
        stream,
        stepDate(stream.lastDate, stream.cadence, k, stream.anchorDay),
      );
      if (dayNumber(date) <= previous) continue;
      previous = dayNumber(date);
      const cashDay = dayNumber(date) + stream.termDays;
      if (cashDay > until) break;
      if (cashDay < todayDay - stream.cadence.graceDays) continue;
      const cashDate = dateOf(cashDay);
      const occurrence = {
        itemId: `${stream.id}_${cashDate.replaceAll("-", "")}`,
        stream,
        date,
        cashDate,
      };
      const day = dayNumber(date);
      const represented = bills.find(
        (b) =>
          !b.used &&
          ((b.bill.issueDate !== null && Math.abs(dayNumber(b.bill.issueDate) - day) <= half) ||
            Math.abs(dayNumber(b.bill.cashDate) - cashDay) <= half),
      );
      if (represented) {
        represented.used = true;
        skipped.push(occurrence);
        continue;
      }
      occurrences.push(occurrence);
    }
  }
  return { occurrences, skipped };
}
