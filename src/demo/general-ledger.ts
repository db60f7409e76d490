import { toBase } from "./amounts.ts";
import { dayFromYmd, longDate, msInstant, ymdOf } from "./calendar.ts";
import { type AccountDef, CHART_OF_ACCOUNTS } from "./catalog.ts";
import type {
  BankTransactionDoc,
  CreditNoteDoc,
  InvoiceDoc,
  Line,
  PaymentDoc,
} from "./documents.ts";
import { str } from "./json-writer.ts";

/**
 * The demo ledger's general ledger, kept only to write its balance sheets
 * (`Reports/BalanceSheet.json`) consistently with the documents: every approved document,
 * payment and bank transaction is posted as the ledger would (accrual basis), per day, in
 * base-currency cents, debit positive. docs/ledger-export.md, "Balance sheet", lists the
 * postings; in short:
 *
 * - sales invoice: receivables + total, GST − tax, each line's account − its ex-tax amount;
 *   bills the mirror (payables, GST paid); credit notes the reverse of an invoice;
 * - payment: bank ± bank amount, receivables/payables ∓ the document amount at the document's
 *   rate (the last payment of a fully paid document clears it exactly), the difference to
 *   foreign currency gains;
 * - spend/receive money: bank ∓ total, GST ± tax, each line's account ± its ex-tax amount;
 *   transfers move only the two banks;
 * - drafts, documents awaiting approval, voided and deleted ones post nothing (the ledger drops
 *   a voided document from its reports).
 *
 * Income and expense accounts roll into Current Year Earnings (from the start of the financial
 * year, 1 July) and, for earlier years, into Retained Earnings.
 */

/** The ledger's id of the Current Year Earnings row (no chart account). */
export const CURRENT_YEAR_EARNINGS = "00000000-0000-0000-0000-000000000000";

const BALANCE_SHEET_CLASSES = new Set(["ASSET", "LIABILITY", "EQUITY"]);

interface PaymentRecord {
  day: number;
  amount: number;
  bankAmount: number;
  bankCode: string;
  /** +1 money in (customer receipts), −1 out. */
  sign: 1 | -1;
}

interface OpenDocument {
  /** Receivables or payables account code. */
  control: string;
  /** +1 receivable (debit), −1 payable (credit). */
  sign: 1 | -1;
  total: number;
  totalBase: number;
  rate6: number;
  foreign: boolean;
}

export class DemoGeneralLedger {
  private readonly chart = new Map<string, AccountDef>(CHART_OF_ACCOUNTS.map((a) => [a.code, a]));
  /** Per account code: day → debit cents. P&L accounts are kept too (for earnings). */
  private readonly deltas = new Map<string, Map<number, number>>();
  private readonly documents = new Map<string, OpenDocument>();
  private readonly payments = new Map<string, PaymentRecord[]>();
  private readonly receivables: string;
  private readonly payables: string;
  private readonly gst: string;
  private readonly fxGains: string;
  private readonly retained: string;

  constructor(private readonly fyEndMonth = 6) {
    const bySystem = (s: string) =>
      CHART_OF_ACCOUNTS.find((a) => a.systemAccount === s)?.code ?? "";
    this.receivables = bySystem("DEBTORS");
    this.payables = bySystem("CREDITORS");
    this.gst = bySystem("GST");
    this.fxGains = bySystem("REALISEDCURRENCYGAIN");
    this.retained = bySystem("RETAINEDEARNINGS");
  }

  private post(day: number, code: string, debit: number): void {
    if (debit === 0) return;
    let byDay = this.deltas.get(code);
    if (!byDay) {
      byDay = new Map();
      this.deltas.set(code, byDay);
    }
    byDay.set(day, (byDay.get(day) ?? 0) + debit);
  }

  /** Lines at their ex-tax base amounts, adjusted so they sum exactly to `netBase`. */
  private postLines(
    day: number,
    lines: readonly Line[],
    inclusive: boolean,
    rate6: number,
    netBase: number,
    sign: 1 | -1,
  ): void {
    const exTax = lines.map((l) => (inclusive ? l.lineCents - l.taxCents : l.lineCents));
    const bases = exTax.map((c) => (rate6 === 1_000_000 ? c : toBase(c, rate6)));
    let residual = netBase - bases.reduce((a, b) => a + b, 0);
    lines.forEach((l, i) => {
      let base = bases[i] ?? 0;
      if (residual !== 0 && i === lines.length - 1) {
        base += residual;
        residual = 0;
      }
      this.post(day, l.account, sign * base);
    });
  }

  /** An invoice (ACCREC) or bill (ACCPAY) in its final status. */
  document(doc: InvoiceDoc): void {
    if (doc.status !== "AUTHORISED" && doc.status !== "PAID") return;
    const foreign = doc.currency !== "AUD";
    const base = (c: number) => (foreign ? toBase(c, doc.rate6) : c);
    const totalBase = base(doc.totals.total);
    const taxBase = base(doc.totals.totalTax);
    const sale = doc.type === "ACCREC";
    const sign: 1 | -1 = sale ? 1 : -1;
    const control = sale ? this.receivables : this.payables;
    this.post(doc.date, control, sign * totalBase);
    this.post(doc.date, this.gst, -sign * taxBase);
    this.postLines(
      doc.date,
      doc.lines,
      doc.lat === "Inclusive",
      foreign ? doc.rate6 : 1_000_000,
      totalBase - taxBase,
      sale ? -1 : 1,
    );
    this.documents.set(doc.id, {
      control,
      sign,
      total: doc.totals.total,
      totalBase,
      rate6: doc.rate6,
      foreign,
    });
  }

  /** A receivable credit note in its final status (the reverse of an invoice). */
  creditNote(cn: CreditNoteDoc): void {
    if (cn.status !== "AUTHORISED" && cn.status !== "PAID") return;
    const foreign = cn.currency !== "AUD";
    const base = (c: number) => (foreign ? toBase(c, cn.rate6) : c);
    const totalBase = base(cn.totals.total);
    const taxBase = base(cn.totals.totalTax);
    this.post(cn.date, this.receivables, -totalBase);
    this.post(cn.date, this.gst, taxBase);
    this.postLines(
      cn.date,
      cn.lines,
      cn.lat === "Inclusive",
      foreign ? cn.rate6 : 1_000_000,
      totalBase - taxBase,
      1,
    );
    // A cash refund of the credit note clears it like a payment of a (negative) document.
    this.documents.set(cn.id, {
      control: this.receivables,
      sign: -1,
      total: cn.totals.total,
      totalBase,
      rate6: cn.rate6,
      foreign,
    });
  }

  /** A payment of an invoice or bill, or a credit note's refund; settled in `finish`. */
  payment(p: PaymentDoc): void {
    const list = this.payments.get(p.doc.id) ?? [];
    list.push({
      day: p.date,
      amount: p.amount,
      bankAmount: p.bankAmount,
      bankCode: p.bank.code,
      sign: p.type === "ACCRECPAYMENT" ? 1 : -1,
    });
    this.payments.set(p.doc.id, list);
  }

  /** A spend or receive money line or a transfer; only AUTHORISED ones post. */
  bankTransaction(t: BankTransactionDoc): void {
    if (t.status !== "AUTHORISED") return;
    const receive = t.type === "RECEIVE" || t.type === "RECEIVE-TRANSFER";
    const sign = receive ? 1 : -1;
    this.post(t.date, t.bank.code, sign * t.totals.total);
    // A transfer's other side is its own transaction on the other bank.
    if (t.type.endsWith("TRANSFER")) return;
    this.post(t.date, this.gst, -sign * t.totals.totalTax);
    this.postLines(
      t.date,
      t.lines,
      t.lat === "Inclusive",
      1_000_000,
      t.totals.total - t.totals.totalTax,
      receive ? -1 : 1,
    );
  }

  /** Posts the payments against their documents (in date order per document). */
  private settlePayments(): void {
    for (const [docId, list] of this.payments) {
      const doc = this.documents.get(docId);
      list.sort((a, b) => a.day - b.day);
      let paid = 0;
      let cleared = 0;
      for (const p of list) {
        this.post(p.day, p.bankCode, p.sign * p.bankAmount);
        if (!doc) continue;
        paid += p.amount;
        const clear = !doc.foreign
          ? p.bankAmount
          : paid >= doc.total
            ? doc.totalBase - cleared
            : toBase(p.amount, doc.rate6);
        cleared += clear;
        this.post(p.day, doc.control, -doc.sign * clear);
        // Receipts: bank − receivable cleared is a gain (credit); payments the mirror.
        this.post(p.day, this.fxGains, -p.sign * (p.bankAmount - clear));
      }
    }
    this.payments.clear();
  }

  /** First day of the financial year holding `day`. */
  private yearStart(day: number): number {
    const { y, m } = ymdOf(day);
    const startMonth = (this.fyEndMonth % 12) + 1;
    return dayFromYmd(m >= startMonth ? y : y - 1, startMonth, 1);
  }

  /**
   * The balance sheets, one report per day on which a balance changed (from the first posting to
   * `toDay`), each in the ledger's ReportWithRows layout with one value column: assets positive
   * when in debit, liabilities and equity positive when in credit.
   */
  balanceSheetReports(
    accountId: (code: string) => string,
    toDay: number,
    orgName: string,
    nowMs: number,
  ): string[] {
    this.settlePayments();
    const days = new Set<number>();
    for (const byDay of this.deltas.values())
      for (const d of byDay.keys()) if (d <= toDay) days.add(d);
    days.add(toDay);
    const ordered = [...days].sort((a, b) => a - b);
    const codes = [...this.deltas.keys()].sort();
    const running = new Map<string, number>(codes.map((c) => [c, 0]));
    const touched = new Set<string>();
    let retainedPrior = 0; // P&L of closed years (credit positive)
    let yearPnl = 0; // P&L of the current year (credit positive)
    let year = ordered.length > 0 ? this.yearStart(ordered[0] ?? toDay) : 0;
    const reports: string[] = [];
    for (const day of ordered) {
      const ys = this.yearStart(day);
      if (ys !== year) {
        retainedPrior += yearPnl;
        yearPnl = 0;
        year = ys;
      }
      for (const code of codes) {
        const d = this.deltas.get(code)?.get(day) ?? 0;
        if (d === 0) continue;
        running.set(code, (running.get(code) ?? 0) + d);
        const cls = this.chart.get(code)?.class ?? "EXPENSE";
        if (BALANCE_SHEET_CLASSES.has(cls)) touched.add(code);
        else yearPnl -= d;
      }
      reports.push(
        this.report(day, running, touched, retainedPrior, yearPnl, accountId, orgName, nowMs),
      );
    }
    return reports;
  }

  private report(
    day: number,
    running: ReadonlyMap<string, number>,
    touched: ReadonlySet<string>,
    retainedPrior: number,
    yearPnl: number,
    accountId: (code: string) => string,
    orgName: string,
    nowMs: number,
  ): string {
    const { y, m, d } = ymdOf(day);
    const short = `${d} ${["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][m - 1]} ${y}`;
    const cell = (value: string, id?: string) =>
      id
        ? `{"Value":${str(value)},"Attributes":[{"Value":"${id}","Id":"account"}]}`
        : `{"Value":${str(value)}}`;
    const row = (name: string, id: string, cents: number) =>
      `{"RowType":"Row","Cells":[${cell(name, id)},${cell(money(cents), id)}]}`;
    const sections: { title: string; types: (a: AccountDef) => boolean }[] = [
      { title: "Bank", types: (a) => a.type === "BANK" },
      {
        title: "Current Assets",
        types: (a) =>
          a.class === "ASSET" && ["CURRENT", "PREPAYMENT", "INVENTORY"].includes(a.type),
      },
      { title: "Fixed Assets", types: (a) => a.class === "ASSET" && a.type === "FIXED" },
      {
        title: "Non-current Assets",
        types: (a) =>
          a.class === "ASSET" &&
          !["BANK", "CURRENT", "PREPAYMENT", "INVENTORY", "FIXED"].includes(a.type),
      },
      {
        title: "Current Liabilities",
        types: (a) => a.class === "LIABILITY" && a.type === "CURRLIAB",
      },
      {
        title: "Non-current Liabilities",
        types: (a) => a.class === "LIABILITY" && a.type !== "CURRLIAB",
      },
    ];
    const parts: string[] = [`{"RowType":"Header","Cells":[${cell("")},${cell(short)}]}`];
    for (const s of sections) {
      const rows: string[] = [];
      for (const a of CHART_OF_ACCOUNTS) {
        if (!touched.has(a.code) || !s.types(a)) continue;
        const debit = running.get(a.code) ?? 0;
        rows.push(row(a.name, accountId(a.code), a.class === "ASSET" ? debit : -debit));
      }
      if (rows.length > 0)
        parts.push(`{"RowType":"Section","Title":${str(s.title)},"Rows":[${rows.join(",")}]}`);
    }
    const equity: string[] = [row("Current Year Earnings", CURRENT_YEAR_EARNINGS, yearPnl)];
    for (const a of CHART_OF_ACCOUNTS) {
      if (a.class !== "EQUITY") continue;
      const own = -(running.get(a.code) ?? 0);
      const value = a.code === this.retained ? own + retainedPrior : own;
      if (!touched.has(a.code) && value === 0) continue;
      equity.push(row(a.name, accountId(a.code), value));
    }
    parts.push(`{"RowType":"Section","Title":"Equity","Rows":[${equity.join(",")}]}`);
    return (
      `{"ReportID":"BalanceSheet","ReportName":"Balance Sheet","ReportType":"BalanceSheet",` +
      `"ReportTitles":["Balance Sheet",${str(orgName)},${str(`As at ${longDate(day)}`)}],` +
      `"ReportDate":${str(longDate(day))},"UpdatedDateUTC":"${msInstant(nowMs)}","Fields":[],` +
      `"Rows":[${parts.join(",")}]}`
    );
  }
}

/** Cents as the ledger's report cells write them: two decimals, `-` for negatives. */
function money(cents: number): string {
  const neg = cents < 0;
  const abs = Math.abs(cents);
  return `${neg ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
