import { prorate } from "./amounts.ts";
import { type BusinessProfile, businessProfile, DEFAULT_BUSINESS } from "./business.ts";
import { dayStartMs, monthKey, ymdOf } from "./calendar.ts";
import { BANK_CHEQUE, BANK_DIRECTOR, BANK_SAVINGS, CHART_OF_ACCOUNTS } from "./catalog.ts";
import type { BankRef } from "./documents.ts";
import { DemoGeneralLedger } from "./general-ledger.ts";
import type { Prng } from "./prng.ts";

/** Incremented status counts per collection, reported in the summary. */
export type StatusCounts = Record<string, number>;

/** Adds `by` to `counts[key]`. */
export function bump(counts: StatusCounts, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** Per-day cash in and out of one bank account, in base-currency cents. */
export class BankBook {
  readonly received: number[];
  readonly spent: number[];

  constructor(
    readonly ref: BankRef,
    private readonly start: number,
    days: number,
  ) {
    this.received = new Array<number>(days).fill(0);
    this.spent = new Array<number>(days).fill(0);
  }

  private index(day: number): number {
    const i = day - this.start;
    if (i < 0 || i >= this.received.length) {
      throw new Error(`bank flow outside the history window (day ${day})`);
    }
    return i;
  }

  receive(day: number, cents: number): void {
    const i = this.index(day);
    this.received[i] = (this.received[i] ?? 0) + cents;
  }

  spend(day: number, cents: number): void {
    const i = this.index(day);
    this.spent[i] = (this.spent[i] ?? 0) + cents;
  }

  /** Net balance of all flows on or before `day`. */
  balanceAt(day: number): number {
    const last = Math.min(day - this.start, this.received.length - 1);
    let b = 0;
    for (let i = 0; i <= last; i++) b += (this.received[i] ?? 0) - (this.spent[i] ?? 0);
    return b;
  }

  /** Received and spent over [from, to]. */
  between(from: number, to: number): { received: number; spent: number } {
    let received = 0;
    let spent = 0;
    for (let d = Math.max(from, this.start); d <= to; d++) {
      const i = d - this.start;
      if (i >= this.received.length) break;
      received += this.received[i] ?? 0;
      spent += this.spent[i] ?? 0;
    }
    return { received, spent };
  }
}

/** Calendar quarter index of a day (for BAS). */
export function quarterOf(day: number): number {
  const { y, m } = ymdOf(day);
  return y * 4 + Math.floor((m - 1) / 3);
}

/**
 * Everything the passes share: the clock-relative window, the random streams, the chart of
 * accounts with its ids, the bank books, and the running tallies that later passes size their
 * amounts from (revenue per month for cost of goods, GST and PAYG per quarter for the BAS).
 */
export class GenState {
  readonly accountIds = new Map<string, string>();
  readonly banks: { cheque: BankBook; savings: BankBook; director: BankBook };
  /** Ex-tax revenue in base-currency cents per `YYYY-MM` (AUTHORISED and PAID sales). */
  readonly revenueByMonth = new Map<string, number>();
  /** Net GST per quarter on a cash basis: collected minus paid. */
  readonly gstByQuarter = new Map<number, number>();
  /** PAYG withheld per quarter. */
  readonly paygByQuarter = new Map<number, number>();
  /** Every posting, for the balance sheets (Reports/BalanceSheet.json). */
  readonly ledger = new DemoGeneralLedger();
  readonly counts = {
    invoices: {} as StatusCounts,
    bills: {} as StatusCounts,
    creditNotes: {} as StatusCounts,
    purchaseOrders: {} as StatusCounts,
    bankTransactions: {} as StatusCounts,
    payments: {} as StatusCounts,
  };
  readonly features = {
    foreignCurrencyDocuments: 0,
    inclusiveDocuments: 0,
    noTaxDocuments: 0,
    discountedLines: 0,
    partPaidInvoices: 0,
    overdueInvoices: 0,
    billedPurchaseOrders: 0,
    openPurchaseOrders: 0,
    creditNotesWithRemainingCredit: 0,
    creditNoteAllocations: 0,
    /** Lines per collection (cash_item_lines, credit_note_lines, purchase_order_lines, …). */
    invoiceLines: 0,
    creditNoteLines: 0,
    purchaseOrderLines: 0,
    bankTransactionLines: 0,
  };
  /** Earliest and latest document dates and the latest due date, for the summary. */
  readonly span = {
    firstDate: Number.POSITIVE_INFINITY,
    lastDate: Number.NEGATIVE_INFINITY,
    lastDue: Number.NEGATIVE_INFINITY,
  };

  constructor(
    readonly root: Prng,
    readonly today: number,
    readonly start: number,
    /** The generation instant: no UpdatedDateUTC may pass it. */
    readonly nowMs: number,
    /** Sales-volume multiplier relative to the default size. */
    readonly scale: number,
    /** The kind of business generated (src/demo/business.ts). */
    readonly business: BusinessProfile = businessProfile(DEFAULT_BUSINESS),
  ) {
    const ids = root.fork("accounts");
    for (const a of CHART_OF_ACCOUNTS) this.accountIds.set(a.code, ids.uuid());
    const days = today - start + 1;
    const ref = (code: string): BankRef => {
      const def = CHART_OF_ACCOUNTS.find((a) => a.code === code);
      if (!def) throw new Error(`no bank account ${code}`);
      return { id: this.accountId(code), code, name: def.name };
    };
    this.banks = {
      cheque: new BankBook(ref(BANK_CHEQUE), start, days),
      savings: new BankBook(ref(BANK_SAVINGS), start, days),
      director: new BankBook(ref(BANK_DIRECTOR), start, days),
    };
  }

  accountId(code: string): string {
    const id = this.accountIds.get(code);
    if (!id) throw new Error(`no account ${code}`);
    return id;
  }

  addRevenue(day: number, cents: number): void {
    const k = monthKey(day);
    this.revenueByMonth.set(k, (this.revenueByMonth.get(k) ?? 0) + cents);
  }

  /** GST share of a payment on a cash basis: the document's tax × paid / total. */
  addGst(day: number, totalTax: number, paid: number, total: number, sign: 1 | -1): void {
    if (totalTax === 0 || total === 0) return;
    const q = quarterOf(day);
    this.gstByQuarter.set(
      q,
      (this.gstByQuarter.get(q) ?? 0) + sign * prorate(totalTax, paid, total),
    );
  }

  addPayg(day: number, cents: number): void {
    const q = quarterOf(day);
    this.paygByQuarter.set(q, (this.paygByQuarter.get(q) ?? 0) + cents);
  }

  /**
   * A plausible UpdatedDateUTC for a record last touched on `day`: during business hours that
   * day, never after the generation instant.
   */
  updatedMs(day: number, prng: Prng): number {
    const ms = dayStartMs(day) + prng.int(8 * 3600, 18 * 3600) * 1000 + prng.int(0, 999);
    return Math.min(ms, this.nowMs - 60_000);
  }

  /** Older lines are reconciled; the last few days' are still waiting. */
  reconciled(day: number, prng: Prng): boolean {
    const age = this.today - day;
    if (age > 10) return prng.chance(0.995);
    if (age > 3) return prng.chance(0.6);
    return prng.chance(0.15);
  }
}

/** Statuses other than AUTHORISED chosen up front for a date-ordered run of documents. */
export type PresetStatus = "DRAFT" | "SUBMITTED" | "DELETED" | "VOIDED";

/**
 * Picks which documents of a run (ages in days, in date order) are drafts or awaiting approval
 * (recent ones), and which were deleted or voided (older ones). At least one of each is
 * guaranteed whenever the run is long enough, so every status is present at any seed.
 */
export function presetStatuses(
  prng: Prng,
  ages: readonly number[],
  opts: { recentDays: number; draft: number; submitted: number; deleted: number; voided: number },
): Map<number, PresetStatus> {
  const out = new Map<number, PresetStatus>();
  const recent: number[] = [];
  const older: number[] = [];
  ages.forEach((age, i) => {
    if (age <= opts.recentDays) {
      recent.push(i);
      const r = prng.next();
      if (r < opts.draft) out.set(i, "DRAFT");
      else if (r < opts.draft + opts.submitted) out.set(i, "SUBMITTED");
    } else {
      older.push(i);
      const r = prng.next();
      if (r < opts.deleted) out.set(i, "DELETED");
      else if (r < opts.deleted + opts.voided) out.set(i, "VOIDED");
    }
  });
  const has = (s: PresetStatus) => [...out.values()].includes(s);
  const lastRecent = recent[recent.length - 1];
  const prevRecent = recent[recent.length - 2];
  if (!has("DRAFT") && lastRecent !== undefined) out.set(lastRecent, "DRAFT");
  if (!has("SUBMITTED") && prevRecent !== undefined && out.get(prevRecent) !== "DRAFT")
    out.set(prevRecent, "SUBMITTED");
  if (older.length >= 10) {
    for (const s of ["DELETED", "VOIDED"] as const) {
      if (has(s)) continue;
      const free = older.filter((i) => !out.has(i));
      if (free.length > 0) out.set(prng.pick(free), s);
    }
  }
  return out;
}
