import { money2, prorate } from "./amounts.ts";
import {
  addMonths,
  dayFromYmd,
  isoOf,
  longDate,
  monthEnd,
  monthStart,
  msInstant,
  weekday,
  ymdOf,
} from "./calendar.ts";
import {
  ACCOUNT_DRAWINGS,
  ACCOUNT_GST,
  ACCOUNT_INTEREST_INCOME,
  ACCOUNT_OWNER_FUNDS,
  ACCOUNT_PAYG,
  ACCOUNT_SALES,
  WAGES_ACCOUNT,
} from "./catalog.ts";
import {
  type BankTransactionDoc,
  type BankTransactionType,
  bankTransactionJson,
  type ContactRef,
  type LineAmountTypes,
  type LineInput,
  priceLine,
  totalsOf,
} from "./documents.ts";
import { type CollectionWriter, str } from "./json-writer.ts";
import type { PayRun } from "./payroll.ts";
import type { Prng } from "./prng.ts";
import { type BankBook, bump, type GenState, quarterOf } from "./state.ts";

/** Contacts that appear only on bank transactions (neither customers nor suppliers). */
export interface BankContacts {
  payroll: ContactRef;
  ato: ContactRef;
  bank: ContactRef;
  director: ContactRef;
  cashSales: ContactRef;
  merchants: { contact: ContactRef; account: string; description: string; median: number }[];
}

const MERCHANTS: readonly [string, string, string, number][] = [
  ["Ampol", "449", "Fuel - delivery van", 9_500],
  ["Officeworks", "453", "Office supplies", 6_800],
  ["Bunnings Warehouse", "473", "Repairs - hardware", 12_000],
  ["Australia Post", "425", "Postage and satchels", 4_500],
  ["Coles", "420", "Staff amenities", 5_500],
  ["Uber", "493", "Rides - customer visits", 3_800],
  ["Jim's Cleaning", "408", "Roastery cleaning", 22_000],
  ["Meta Platforms", "400", "Social advertising", 15_000],
];

/** The bank-only contacts, with their names reserved so no customer takes them. */
export function makeBankContacts(prng: Prng, reserve: (name: string) => void): BankContacts {
  const c = (name: string): ContactRef => {
    reserve(name);
    return { id: prng.uuid(), name };
  };
  return {
    payroll: c("Staff Payroll"),
    ato: c("Australian Taxation Office"),
    bank: c("Commonwealth Bank"),
    director: c("Alex Morgan (Director)"),
    cashSales: c("Cash Sales"),
    merchants: MERCHANTS.map(([name, account, description, median]) => ({
      contact: c(name),
      account,
      description,
      median,
    })),
  };
}

/** One bank account's line of the BankSummary report, in cents. */
export interface BankSummaryRow {
  accountId: string;
  code: string;
  name: string;
  openingBalance: number;
  cashReceived: number;
  cashSpent: number;
  closingBalance: number;
}

const RECEIVING: ReadonlySet<BankTransactionType> = new Set(["RECEIVE", "RECEIVE-TRANSFER"]);

/** A bank line, optionally with its LineItemID drawn elsewhere (see the payroll below). */
type BankLineInput = LineInput & { id?: string };

/**
 * The banking pass: opening funds, fortnightly payroll (gross wages on account 477, the PAYG
 * withheld credited to the PAYG liability 825, the net paid), everyday card spending,
 * market-stall cash sales, the director's loan account, quarterly BAS (GST collected minus paid
 * on a cash basis, plus the PAYG withheld, which clears 825), and month-end bank fees, savings interest and
 * sweeps between cheque and savings that keep the cheque account near a working balance. Then
 * the BankSummary report of the last year, consistent with every payment and transaction.
 */
export async function generateBanking(
  st: GenState,
  payRuns: readonly PayRun[],
  contacts: BankContacts,
  annualRevenue: number,
  out: { bankTransactions: CollectionWriter },
): Promise<{ rows: BankSummaryRow[]; fromDay: number; toDay: number }> {
  const prng = st.root.fork("banking");
  const ids = st.root.fork("banking-ids");
  const { cheque, savings, director } = st.banks;
  const { start, today } = st;
  const txns: BankTransactionDoc[] = [];

  const add = (
    book: BankBook,
    type: BankTransactionType,
    date: number,
    contact: ContactRef | undefined,
    reference: string,
    lat: LineAmountTypes,
    lines: BankLineInput[],
    status: BankTransactionDoc["status"] = "AUTHORISED",
  ): BankTransactionDoc => {
    const priced = lines.map(({ id, ...l }) => priceLine(id ?? ids.uuid(), l, lat));
    const totals = totalsOf(priced, lat);
    const t: BankTransactionDoc = {
      id: ids.uuid(),
      type,
      contact,
      bank: book.ref,
      date,
      reference,
      status,
      reconciled: st.reconciled(date, prng),
      lat,
      lines: priced,
      totals,
      updatedMs: st.updatedMs(date, prng),
    };
    if (status === "AUTHORISED") {
      if (RECEIVING.has(type)) book.receive(date, totals.total);
      else book.spend(date, totals.total);
      st.addGst(date, totals.totalTax, totals.total, totals.total, RECEIVING.has(type) ? 1 : -1);
    }
    txns.push(t);
    return t;
  };
  const one = (
    description: string,
    cents: number,
    account: string,
    taxType: string,
  ): LineInput[] => [{ description, qtyH: 100, unit4: cents * 100, account, taxType }];
  const transfer = (from: BankBook, to: BankBook, date: number, cents: number, why: string) => {
    add(
      from,
      "SPEND-TRANSFER",
      date,
      undefined,
      `${why} to ${to.ref.name}`,
      "NoTax",
      one(why, cents, to.ref.code, "BASEXCLUDED"),
    );
    add(
      to,
      "RECEIVE-TRANSFER",
      date,
      undefined,
      `${why} from ${from.ref.name}`,
      "NoTax",
      one(why, cents, from.ref.code, "BASEXCLUDED"),
    );
  };
  const dollars = (cents: number, round: number) =>
    Math.max(round, Math.round(cents / round) * round);
  // Below the default size, fixed amounts shrink with the business so that it stays solvent.
  const small = Math.min(1, st.scale);
  const fixed = (cents: number) => Math.max(100, Math.round(cents * small));

  // Opening funds: the owner's capital, so every balance is explained by transactions.
  const floor = Math.max(fixed(1_000_000), Math.round(annualRevenue * 0.05));
  add(
    cheque,
    "RECEIVE",
    start,
    contacts.director,
    "Opening funds",
    "NoTax",
    one(
      "Owner funds introduced",
      dollars(annualRevenue * 0.1, 100),
      ACCOUNT_OWNER_FUNDS,
      "BASEXCLUDED",
    ),
  );
  add(
    savings,
    "RECEIVE",
    start,
    contacts.director,
    "Opening funds",
    "NoTax",
    one(
      "Owner funds introduced",
      dollars(annualRevenue * 0.06, 100),
      ACCOUNT_OWNER_FUNDS,
      "BASEXCLUDED",
    ),
  );
  add(
    director,
    "RECEIVE",
    start,
    contacts.director,
    "Opening funds",
    "NoTax",
    one(
      "Director loan drawn",
      dollars(Math.max(fixed(300_000), annualRevenue * 0.015), 100),
      ACCOUNT_OWNER_FUNDS,
      "BASEXCLUDED",
    ),
  );

  // Payroll every second Thursday, booked as a business without a payroll module books it in
  // the ledger: one spend-money transaction of the net pay whose lines are the gross wages
  // (expense 477, the sensitive account, first: a bank line's account is its first line's) and
  // the PAYG withheld as a negative line on the PAYG liability 825, so the liability is accrued
  // here and cleared by the quarterly BAS below (it never shows a debit balance). The withholding
  // line's id comes from its own fork so that every other id stays as it was.
  const withholdingIds = st.root.fork("payroll-withholding");
  for (const r of payRuns) {
    add(cheque, "SPEND", r.day, contacts.payroll, `Pay run ${isoOf(r.day)}`, "NoTax", [
      ...one(
        `Gross wages - fortnight ending ${longDate(r.day)}`,
        r.gross,
        WAGES_ACCOUNT,
        "BASEXCLUDED",
      ),
      {
        description: "PAYG withheld",
        qtyH: 100,
        unit4: -r.payg * 100,
        account: ACCOUNT_PAYG,
        taxType: "BASEXCLUDED",
        id: withholdingIds.uuid(),
      },
    ]);
    st.addPayg(r.day, r.payg);
  }

  // Everyday spending on the business card (receipts are GST-inclusive), with a few duplicates voided.
  const spends = 130 + Math.round(20 * Math.sqrt(st.scale));
  for (let i = 0; i < spends; i++) {
    const m = prng.pick(contacts.merchants);
    const day = prng.int(start + 1, today);
    const cents = Math.max(500, Math.round(fixed(m.median) * Math.exp(0.5 * prng.normal())));
    const status = prng.chance(0.02) ? "VOIDED" : "AUTHORISED";
    add(
      cheque,
      "SPEND",
      day,
      m.contact,
      m.description,
      "Inclusive",
      one(m.description, cents, m.account, "INPUT"),
      status,
    );
  }

  // Market-stall takings banked about monthly.
  for (let day = start + prng.int(5, 30); day <= today; day += prng.int(25, 40)) {
    const cents =
      Math.round(Math.max(fixed(20_000), fixed(65_000) * Math.exp(0.4 * prng.normal())) / 5) * 5;
    add(
      cheque,
      "RECEIVE",
      day,
      contacts.cashSales,
      "Market stall takings",
      "Inclusive",
      one("Carriageworks market - coffee and beans", cents, ACCOUNT_SALES, "OUTPUT"),
    );
  }

  // The director's loan account: topped up quarterly from the cheque account, drawn monthly.
  const topUp = dollars(Math.max(fixed(300_000), (annualRevenue * 0.012) / 4), 100);
  const directorEvents: { day: number; kind: "in" | "draw" | "travel" }[] = [];
  for (let d = start + 20; d <= today; d = addMonths(d, 3))
    directorEvents.push({ day: d, kind: "in" });
  for (let d = dayFromYmd(ymdOf(start).y, ymdOf(start).m, 15); d <= today; d = addMonths(d, 1)) {
    if (d > start) directorEvents.push({ day: d, kind: "draw" });
  }
  for (let i = 0; i < 10; i++)
    directorEvents.push({ day: prng.int(start + 1, today), kind: "travel" });
  directorEvents.sort((a, b) => a.day - b.day);
  let directorBalance = director.balanceAt(start);
  for (const e of directorEvents) {
    if (e.kind === "in") {
      transfer(cheque, director, e.day, topUp, "Director loan top-up");
      directorBalance += topUp;
    } else if (e.kind === "draw") {
      const cents = Math.min(
        directorBalance - 10_000,
        Math.round((topUp * (0.25 + 0.1 * prng.next())) / 1_000) * 1_000,
      );
      if (cents > 0) {
        add(
          director,
          "SPEND",
          e.day,
          contacts.director,
          "Director drawings",
          "NoTax",
          one("Director drawings", cents, ACCOUNT_DRAWINGS, "BASEXCLUDED"),
        );
        directorBalance -= cents;
      }
    } else {
      const cents = Math.min(directorBalance - 10_000, prng.int(15_000, 90_000));
      if (cents > 0) {
        add(
          director,
          "SPEND",
          e.day,
          prng.pick(contacts.merchants).contact,
          "Interstate trip - supplier visit",
          "Inclusive",
          one("Flights and accommodation", cents, "493", "INPUT"),
        );
        directorBalance -= cents;
      }
    }
  }

  // BAS: due on the 28th of the month after each quarter (28 February for the December quarter).
  for (let q = quarterOf(start); q <= quarterOf(today); q++) {
    const y = Math.floor(q / 4);
    const lastMonth = (q % 4) * 3 + 3;
    const due =
      lastMonth === 12 ? dayFromYmd(y + 1, 2, 28) : addMonths(dayFromYmd(y, lastMonth, 1), 1, 28);
    if (due > today) continue;
    const gst = st.gstByQuarter.get(q) ?? 0;
    const payg = st.paygByQuarter.get(q) ?? 0;
    const label = `BAS quarter ending ${longDate(monthEnd(dayFromYmd(y, lastMonth, 1)))}`;
    const lines: LineInput[] = [];
    if (gst > 0) lines.push(...one("GST payable", gst, ACCOUNT_GST, "BASEXCLUDED"));
    if (payg > 0) lines.push(...one("PAYG withholding", payg, ACCOUNT_PAYG, "BASEXCLUDED"));
    if (lines.length > 0) add(cheque, "SPEND", due, contacts.ato, label, "NoTax", lines);
    if (gst < 0)
      add(
        cheque,
        "RECEIVE",
        due,
        contacts.ato,
        `${label} - GST refund`,
        "NoTax",
        one("GST refund", -gst, ACCOUNT_GST, "BASEXCLUDED"),
      );
  }

  // Month ends: fees, interest, then sweep surplus to savings or top the cheque account up.
  for (let m = monthStart(start); monthEnd(m) <= today; m = addMonths(m, 1)) {
    let me = monthEnd(m);
    while (weekday(me) === 0 || weekday(me) === 6) me -= 1;
    if (me < start) continue;
    add(
      cheque,
      "SPEND",
      me,
      contacts.bank,
      "Account keeping fee",
      "NoTax",
      one("Monthly account fee", fixed(1_000 + prng.int(0, 30) * 100), "404", "EXEMPTEXPENSES"),
    );
    const saved = savings.balanceAt(me);
    if (saved > 0) {
      add(
        savings,
        "RECEIVE",
        me,
        contacts.bank,
        "Interest",
        "NoTax",
        one(
          "Interest on savings",
          Math.max(1, prorate(saved, 2, 1000)),
          ACCOUNT_INTEREST_INCOME,
          "INPUTTAXED",
        ),
      );
    }
    const balance = cheque.balanceAt(me);
    if (balance > 2.5 * floor) {
      const cents = Math.floor((balance - 2 * floor) / 100_000) * 100_000;
      if (cents > 0) transfer(cheque, savings, me, cents, "Surplus sweep");
    } else if (balance < floor) {
      const available = Math.floor(savings.balanceAt(me) / 100_000) * 100_000;
      const cents = Math.min(available, Math.ceil((floor - balance) / 100_000) * 100_000);
      if (cents > 0) transfer(savings, cheque, me, cents, "Working capital top-up");
    }
  }

  txns.sort((a, b) => a.date - b.date);
  for (const t of txns) {
    bump(st.counts.bankTransactions, t.status);
    st.features.bankTransactionLines += t.lines.length;
    await out.bankTransactions.add(bankTransactionJson(t));
    st.ledger.bankTransaction(t);
  }

  // The report covers the year to today (the ledger allows at most one year per request).
  const fromDay = today - 364;
  const rows = [cheque, savings, director].map((b): BankSummaryRow => {
    const openingBalance = b.balanceAt(fromDay - 1);
    const { received, spent } = b.between(fromDay, today);
    return {
      accountId: b.ref.id,
      code: b.ref.code,
      name: b.ref.name,
      openingBalance,
      cashReceived: received,
      cashSpent: spent,
      closingBalance: openingBalance + received - spent,
    };
  });
  return { rows, fromDay, toDay: today };
}

/** The BankSummary report in the ledger's ReportWithRows layout (numbers as 2-dp strings). */
export function bankSummaryJson(
  rows: readonly BankSummaryRow[],
  fromDay: number,
  toDay: number,
  orgName: string,
  envelope: string,
  nowMs: number,
): string {
  const cell = (value: string, attrs?: [string, string][]) =>
    attrs
      ? `{"Value":${str(value)},"Attributes":[${attrs.map(([id, v]) => `{"Value":"${v}","Id":"${id}"}`).join(",")}]}`
      : `{"Value":${str(value)}}`;
  const header = `{"RowType":"Header","Cells":[${["Bank Accounts", "Opening Balance", "Cash Received", "Cash Spent", "Closing Balance"].map((v) => cell(v)).join(",")}]}`;
  const body = rows.map(
    (r) =>
      `{"RowType":"Row","Cells":[${[
        cell(r.name, [["accountID", r.accountId]]),
        cell(money2(r.openingBalance)),
        cell(money2(r.cashReceived), [["account", r.accountId]]),
        cell(money2(r.cashSpent), [["account", r.accountId]]),
        cell(money2(r.closingBalance)),
      ].join(",")}]}`,
  );
  const sum = (f: (r: BankSummaryRow) => number) => money2(rows.reduce((a, r) => a + f(r), 0));
  const total = `{"RowType":"SummaryRow","Cells":[${[
    cell("Total"),
    cell(sum((r) => r.openingBalance)),
    cell(sum((r) => r.cashReceived)),
    cell(sum((r) => r.cashSpent)),
    cell(sum((r) => r.closingBalance)),
  ].join(",")}]}`;
  const report =
    `{"ReportID":"BankSummary","ReportName":"Bank Summary","ReportType":"BankSummary",` +
    `"ReportTitles":["Bank Summary",${str(orgName)},${str(`From ${longDate(fromDay)} to ${longDate(toDay)}`)}],` +
    `"ReportDate":${str(longDate(toDay))},"UpdatedDateUTC":"${msInstant(nowMs)}","Fields":[],` +
    `"Rows":[${header},{"RowType":"Section","Title":"","Rows":[${[...body, total].join(",")}]}]}`;
  return `${envelope}"Reports":[${report}]}`;
}
