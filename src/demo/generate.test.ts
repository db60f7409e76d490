import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Decimal } from "decimal.js";
import { parse } from "lossless-json";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { money } from "../domain/money.ts";
import {
  DEFAULT_DEMO_INVOICES,
  DEMO_FILES,
  type DemoSummary,
  generateDemoLedger,
} from "./generate.ts";

// Ledger JSON parsed losslessly: every number becomes an exact Decimal.
// biome-ignore lint/suspicious/noExplicitAny: test-side view of untyped ledger JSON
type J = any;

const NOW = new Date("2026-03-10T01:30:00Z"); // 12:30 in Sydney: today is 2026-03-10
const DAY = 86_400_000;
/** Overridable to sweep seeds by hand: DEMO_TEST_SEED=7 npx vitest run src/demo. */
const SEED = process.env.DEMO_TEST_SEED ?? 42;

async function readJson(folder: string, file: string): Promise<J> {
  return parse(await readFile(join(folder, file), "utf8"), null, (s: string) => money(s));
}

interface Ledger {
  org: J;
  accounts: J[];
  contacts: J[];
  invoices: J[];
  creditNotes: J[];
  purchaseOrders: J[];
  payments: J[];
  bankTransactions: J[];
  report: J;
}

async function readLedger(folder: string): Promise<Ledger> {
  return {
    org: (await readJson(folder, "Organisation.json")).Organisations[0],
    accounts: (await readJson(folder, "Accounts.json")).Accounts,
    contacts: (await readJson(folder, "Contacts.json")).Contacts,
    invoices: (await readJson(folder, "Invoices.json")).Invoices,
    creditNotes: (await readJson(folder, "CreditNotes.json")).CreditNotes,
    purchaseOrders: (await readJson(folder, "PurchaseOrders.json")).PurchaseOrders,
    payments: (await readJson(folder, "Payments.json")).Payments,
    bankTransactions: (await readJson(folder, "BankTransactions.json")).BankTransactions,
    report: (await readJson(folder, "Reports/BankSummary.json")).Reports[0],
  };
}

/** `/Date(…+0000)/` of a calendar date → `YYYY-MM-DD`; fails unless it is midnight UTC. */
function day(ms: string): string {
  const m = /^\/Date\((\d+)\+0000\)\/$/.exec(ms);
  if (!m) throw new Error(`not a ledger date: ${ms}`);
  const epoch = Number(m[1]);
  if (epoch % DAY !== 0) throw new Error(`calendar date not at midnight UTC: ${ms}`);
  return new Date(epoch).toISOString().slice(0, 10);
}

const round2 = (d: Decimal) => d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
const sum = (xs: Iterable<Decimal>) => {
  let t = money(0);
  for (const x of xs) t = t.plus(x);
  return t;
};
const GST = new Set(["OUTPUT", "INPUT"]);

async function fileHashes(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of DEMO_FILES)
    out[f] = createHash("sha256")
      .update(await readFile(join(folder, f)))
      .digest("hex");
  return out;
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "demo-ledger-"));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("generateDemoLedger", () => {
  let folder: string;
  let summary: DemoSummary;
  let ledger: Ledger;

  beforeAll(async () => {
    folder = await tempDir();
    summary = await generateDemoLedger({ seed: SEED, now: NOW, folder });
    ledger = await readLedger(folder);
  });

  describe("determinism", () => {
    it("writes byte-identical files for the same seed and clock", async () => {
      const again = await tempDir();
      const second = await generateDemoLedger({ seed: SEED, now: NOW, folder: again });
      expect(await fileHashes(again)).toEqual(await fileHashes(folder));
      expect({ ...second, folder: "" }).toEqual({ ...summary, folder: "" });
    });

    it("reports the sha256 of every file it wrote", async () => {
      const hashes = await fileHashes(folder);
      for (const f of summary.files) expect(f.sha256, f.path).toBe(hashes[f.path]);
      expect(summary.files.map((f) => f.path)).toEqual([...DEMO_FILES]);
    });

    it("treats a numeric seed and its string as the same seed, and another seed as different", async () => {
      const same = await tempDir();
      await generateDemoLedger({ seed: "42", now: NOW, folder: same, invoices: 200 });
      const numeric = await tempDir();
      await generateDemoLedger({ seed: 42, now: NOW, folder: numeric, invoices: 200 });
      const other = await tempDir();
      await generateDemoLedger({ seed: 43, now: NOW, folder: other, invoices: 200 });
      const a = await fileHashes(numeric);
      expect(await fileHashes(same)).toEqual(a);
      const b = await fileHashes(other);
      for (const f of DEMO_FILES) expect(b[f], f).not.toBe(a[f]);
    });

    it("moves the whole history with the clock", async () => {
      const later = await tempDir();
      const shifted = await generateDemoLedger({
        seed: SEED,
        now: new Date(NOW.getTime() + 45 * DAY),
        folder: later,
      });
      expect(summary.dateRange.to).toBe("2026-03-10");
      expect(summary.dateRange.from).toBe("2024-03-10");
      expect(shifted.dateRange.to).toBe("2026-04-24");
      expect(shifted.dateRange.from).toBe("2024-04-24");
      for (const [s, l] of [
        [summary, ledger],
        [shifted, await readLedger(later)],
      ] as const) {
        const dates = [
          ...l.invoices.map((i: J) => day(i.Date)),
          ...l.payments.map((p: J) => day(p.Date)),
          ...l.bankTransactions.map((b: J) => day(b.Date)),
          ...l.creditNotes.map((c: J) => day(c.Date)),
        ].sort();
        const first = dates[0] ?? "";
        const last = dates[dates.length - 1] ?? "";
        expect(first >= s.dateRange.from).toBe(true);
        expect(last <= s.dateRange.to).toBe(true);
        // Recent activity right up to the clock, and history reaching back about two years.
        expect(last >= isoMinus(s.dateRange.to, 3)).toBe(true);
        expect(first <= isoMinus(s.dateRange.from, -10)).toBe(true);
        for (const i of l.invoices)
          expect(Number(i.UpdatedDateUTC.slice(6, -7)) <= Date.parse(s.now)).toBe(true);
      }
    });
  });

  it("generates exactly the requested number of sales invoices and refuses sizes out of range", async () => {
    const small = await tempDir();
    const s = await generateDemoLedger({ seed: "x", now: NOW, folder: small, invoices: 57 });
    const l = await readLedger(small);
    expect(l.invoices.filter((i: J) => i.Type === "ACCREC")).toHaveLength(57);
    expect(s.counts.invoices).toBe(57);
    for (const bad of [0, 200_001, 1.5, -3]) {
      await expect(
        generateDemoLedger({ seed: "x", now: NOW, folder: small, invoices: bad }),
      ).rejects.toThrow(RangeError);
    }
  });

  describe("internal consistency (exact decimals, every document)", () => {
    it("prices every line: LineAmount = Quantity × UnitAmount × (1 − DiscountRate/100), tax at 10%", () => {
      const docs = [
        ...ledger.invoices,
        ...ledger.creditNotes,
        ...ledger.purchaseOrders,
        ...ledger.bankTransactions,
      ];
      let checked = 0;
      for (const d of docs) {
        for (const l of d.LineItems) {
          const disc = l.DiscountRate ? money(1).minus(l.DiscountRate.div(100)) : money(1);
          expect(
            l.LineAmount.equals(round2(l.Quantity.times(l.UnitAmount).times(disc))),
            JSON.stringify(l),
          ).toBe(true);
          expect(l.UnitAmount.decimalPlaces()).toBeLessThanOrEqual(4);
          expect(l.LineAmount.decimalPlaces()).toBeLessThanOrEqual(2);
          let tax = money(0);
          if (d.LineAmountTypes !== "NoTax" && GST.has(l.TaxType)) {
            tax =
              d.LineAmountTypes === "Inclusive"
                ? round2(l.LineAmount.div(11))
                : round2(l.LineAmount.times("0.1"));
          }
          expect(l.TaxAmount.equals(tax), JSON.stringify(l)).toBe(true);
          if (l.DiscountRate) expect(d.Type).toBe("ACCREC");
          checked += 1;
        }
      }
      expect(checked).toBeGreaterThan(2_000);
    });

    it("totals every document: SubTotal, TotalTax, Total and TotalDiscount", () => {
      for (const d of [
        ...ledger.invoices,
        ...ledger.creditNotes,
        ...ledger.purchaseOrders,
        ...ledger.bankTransactions,
      ]) {
        const lines = sum(d.LineItems.map((l: J) => l.LineAmount));
        const tax = sum(d.LineItems.map((l: J) => l.TaxAmount));
        expect(d.TotalTax.equals(tax)).toBe(true);
        if (d.LineAmountTypes === "Inclusive") {
          expect(d.Total.equals(lines)).toBe(true);
          expect(d.SubTotal.equals(lines.minus(tax))).toBe(true);
        } else {
          expect(d.SubTotal.equals(lines)).toBe(true);
          expect(d.Total.equals(lines.plus(tax))).toBe(true);
        }
        for (const k of ["SubTotal", "TotalTax", "Total"])
          expect(d[k].decimalPlaces()).toBeLessThanOrEqual(2);
        if (d.TotalDiscount) {
          const gross = sum(d.LineItems.map((l: J) => round2(l.Quantity.times(l.UnitAmount))));
          expect(d.TotalDiscount.equals(gross.minus(lines))).toBe(true);
        }
      }
    });

    it("settles every invoice and bill: payments sum to AmountPaid, allocations to AmountCredited, AmountDue is the rest", () => {
      const paid = new Map<string, Decimal>();
      const paidOn = new Map<string, string>();
      for (const p of ledger.payments) {
        if (!p.Invoice) continue;
        const id = p.Invoice.InvoiceID;
        paid.set(id, (paid.get(id) ?? money(0)).plus(p.Amount));
        const d = day(p.Date);
        if ((paidOn.get(id) ?? "") < d) paidOn.set(id, d);
      }
      const credited = new Map<string, Decimal>();
      for (const c of ledger.creditNotes) {
        for (const a of c.Allocations) {
          credited.set(
            a.Invoice.InvoiceID,
            (credited.get(a.Invoice.InvoiceID) ?? money(0)).plus(a.Amount),
          );
        }
      }
      const byId = new Map(ledger.invoices.map((i: J) => [i.InvoiceID, i]));
      for (const id of paid.keys()) expect(byId.has(id)).toBe(true);
      for (const i of ledger.invoices) {
        const p = paid.get(i.InvoiceID) ?? money(0);
        const c = credited.get(i.InvoiceID) ?? money(0);
        expect(i.AmountPaid.equals(p), i.InvoiceNumber).toBe(true);
        expect(i.AmountCredited.equals(c), i.InvoiceNumber).toBe(true);
        if (i.Status === "VOIDED" || i.Status === "DELETED") {
          // As the ledger reports them: nothing due, nothing paid.
          expect(i.AmountDue.isZero() && p.isZero()).toBe(true);
        } else {
          expect(i.AmountDue.equals(i.Total.minus(p).minus(c)), i.InvoiceNumber).toBe(true);
          expect(i.AmountDue.isNegative()).toBe(false);
        }
        if (i.Status === "DRAFT" || i.Status === "SUBMITTED")
          expect(p.isZero() && c.isZero()).toBe(true);
        expect(i.Status === "PAID").toBe(
          i.Status !== "VOIDED" &&
            i.Status !== "DELETED" &&
            i.Status !== "DRAFT" &&
            i.Status !== "SUBMITTED" &&
            i.AmountDue.isZero(),
        );
        if (i.Status === "PAID")
          expect(day(i.FullyPaidOnDate) >= (paidOn.get(i.InvoiceID) ?? "")).toBe(true);
        else expect(i.FullyPaidOnDate).toBeUndefined();
      }
    });

    it("keeps credit notes whole: RemainingCredit = Total − allocations − refunds", () => {
      const refunds = new Map<string, Decimal>();
      for (const p of ledger.payments) {
        if (p.CreditNote) {
          expect(p.PaymentType).toBe("ARCREDITPAYMENT");
          refunds.set(
            p.CreditNote.CreditNoteID,
            (refunds.get(p.CreditNote.CreditNoteID) ?? money(0)).plus(p.Amount),
          );
        }
      }
      const invoiceIds = new Set(ledger.invoices.map((i: J) => i.InvoiceID));
      for (const c of ledger.creditNotes) {
        expect(c.Type).toBe("ACCRECCREDIT");
        const allocated = sum(c.Allocations.map((a: J) => a.Amount));
        for (const a of c.Allocations) expect(invoiceIds.has(a.Invoice.InvoiceID)).toBe(true);
        const refunded = refunds.get(c.CreditNoteID) ?? money(0);
        if (c.Status === "VOIDED" || c.Status === "DRAFT") {
          expect(allocated.isZero() && refunded.isZero()).toBe(true);
          continue;
        }
        expect(
          c.RemainingCredit.equals(c.Total.minus(allocated).minus(refunded)),
          c.CreditNoteNumber,
        ).toBe(true);
        expect(c.Status === "PAID").toBe(c.RemainingCredit.isZero());
      }
    });

    it("converts foreign payments at their rate: BankAmount = Amount / CurrencyRate", () => {
      for (const p of ledger.payments) {
        const doc = p.Invoice ?? p.CreditNote;
        if (doc.CurrencyCode === "AUD") {
          expect(p.BankAmount.equals(p.Amount)).toBe(true);
          expect(p.CurrencyRate.equals(1)).toBe(true);
        } else {
          expect(p.BankAmount.equals(round2(p.Amount.div(p.CurrencyRate)))).toBe(true);
        }
      }
    });

    it("closes the BankSummary report on exactly the generated payments and bank transactions", () => {
      const from = summary.bankSummary.fromDate;
      const to = summary.bankSummary.toDate;
      const flows = new Map<string, { before: Decimal; received: Decimal; spent: Decimal }>();
      const flow = (account: string, date: string, amount: Decimal, inbound: boolean) => {
        expect(date <= to).toBe(true);
        const f = flows.get(account) ?? { before: money(0), received: money(0), spent: money(0) };
        if (date < from) f.before = inbound ? f.before.plus(amount) : f.before.minus(amount);
        else if (inbound) f.received = f.received.plus(amount);
        else f.spent = f.spent.plus(amount);
        flows.set(account, f);
      };
      for (const p of ledger.payments) {
        if (p.Status !== "AUTHORISED") continue;
        flow(p.Account.AccountID, day(p.Date), p.BankAmount, p.PaymentType === "ACCRECPAYMENT");
      }
      for (const b of ledger.bankTransactions) {
        if (b.Status !== "AUTHORISED") continue;
        flow(b.BankAccount.AccountID, day(b.Date), b.Total, b.Type.startsWith("RECEIVE"));
      }
      const section = ledger.report.Rows.find((r: J) => r.RowType === "Section");
      const rows = section.Rows.filter((r: J) => r.RowType === "Row");
      expect(ledger.report.Rows[0].Cells.map((c: J) => c.Value)).toEqual([
        "Bank Accounts",
        "Opening Balance",
        "Cash Received",
        "Cash Spent",
        "Closing Balance",
      ]);
      expect(rows).toHaveLength(3);
      const totals = [money(0), money(0), money(0), money(0)];
      for (const r of rows) {
        const id = r.Cells[0].Attributes.find((a: J) => a.Id === "accountID").Value;
        const f = flows.get(id);
        expect(f, r.Cells[0].Value).toBeDefined();
        const [opening, received, spent, closing] = r.Cells.slice(1).map((c: J) => {
          expect(c.Value).toMatch(/^-?\d+\.\d{2}$/);
          return money(c.Value);
        });
        expect(opening.equals(f?.before ?? 0)).toBe(true);
        expect(received.equals(f?.received ?? 0)).toBe(true);
        expect(spent.equals(f?.spent ?? 0)).toBe(true);
        expect(closing.equals(opening.plus(received).minus(spent))).toBe(true);
        [opening, received, spent, closing].forEach((v, k) => {
          totals[k] = (totals[k] ?? money(0)).plus(v);
        });
        const s = summary.bankSummary.accounts.find((a) => a.accountId === id);
        expect(s?.closingBalance).toBe(closing.toFixed(2));
        // A solvent demo business.
        expect(closing.isNegative()).toBe(false);
      }
      const total = section.Rows.find((r: J) => r.RowType === "SummaryRow");
      expect(total.Cells.slice(1).map((c: J) => c.Value)).toEqual(totals.map((t) => t.toFixed(2)));
    });

    it("references only known contacts and accounts, with unique ids and sales invoice numbers", () => {
      const contactIds = new Set(ledger.contacts.map((c: J) => c.ContactID));
      const names = ledger.contacts.map((c: J) => c.Name.toLowerCase());
      expect(new Set(names).size).toBe(names.length);
      const codes = new Set(ledger.accounts.map((a: J) => a.Code));
      const accountIds = new Set(ledger.accounts.map((a: J) => a.AccountID));
      for (const d of [...ledger.invoices, ...ledger.creditNotes, ...ledger.purchaseOrders]) {
        expect(contactIds.has(d.Contact.ContactID)).toBe(true);
        for (const l of d.LineItems) expect(codes.has(l.AccountCode), l.AccountCode).toBe(true);
      }
      for (const b of ledger.bankTransactions) {
        if (b.Contact) expect(contactIds.has(b.Contact.ContactID)).toBe(true);
        expect(accountIds.has(b.BankAccount.AccountID)).toBe(true);
        for (const l of b.LineItems) expect(codes.has(l.AccountCode)).toBe(true);
      }
      for (const p of ledger.payments) expect(accountIds.has(p.Account.AccountID)).toBe(true);
      const ids = [
        ...ledger.invoices.map((i: J) => i.InvoiceID),
        ...ledger.creditNotes.map((c: J) => c.CreditNoteID),
        ...ledger.purchaseOrders.map((p: J) => p.PurchaseOrderID),
        ...ledger.payments.map((p: J) => p.PaymentID),
        ...ledger.bankTransactions.map((b: J) => b.BankTransactionID),
        ...ledger.contacts.map((c: J) => c.ContactID),
        ...ledger.accounts.map((a: J) => a.AccountID),
        ...[
          ...ledger.invoices,
          ...ledger.creditNotes,
          ...ledger.purchaseOrders,
          ...ledger.bankTransactions,
        ].flatMap((d: J) => d.LineItems.map((l: J) => l.LineItemID)),
      ];
      for (const id of ids)
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Set(ids).size).toBe(ids.length);
      const numbers = ledger.invoices
        .filter((i: J) => i.Type === "ACCREC")
        .map((i: J) => i.InvoiceNumber);
      expect(new Set(numbers).size).toBe(numbers.length);
    });

    it("matches the summary's counts to the files", () => {
      const c = summary.counts;
      expect(ledger.invoices.filter((i: J) => i.Type === "ACCREC")).toHaveLength(c.invoices);
      expect(ledger.invoices.filter((i: J) => i.Type === "ACCPAY")).toHaveLength(c.bills);
      expect(ledger.creditNotes).toHaveLength(c.creditNotes);
      expect(ledger.purchaseOrders).toHaveLength(c.purchaseOrders);
      expect(ledger.payments).toHaveLength(c.payments);
      expect(ledger.bankTransactions).toHaveLength(c.bankTransactions);
      expect(ledger.contacts).toHaveLength(c.contacts);
      expect(ledger.accounts).toHaveLength(c.accounts);
      expect(ledger.contacts.filter((x: J) => x.IsCustomer)).toHaveLength(c.customers);
      expect(ledger.contacts.filter((x: J) => x.IsSupplier)).toHaveLength(c.suppliers);
      expect(c.invoices).toBe(DEFAULT_DEMO_INVOICES);
      // About 1,500 invoices and bills over two years at the default size.
      expect(c.invoices + c.bills).toBeGreaterThan(1_350);
      expect(c.invoices + c.bills).toBeLessThan(1_700);
    });
  });

  describe("the population", () => {
    const sales = () => ledger.invoices.filter((i: J) => i.Type === "ACCREC");
    const bills = () => ledger.invoices.filter((i: J) => i.Type === "ACCPAY");

    it("has about 150 customers with every ordering cadence, weekly to annual and irregular", () => {
      const customers = ledger.contacts.filter((c: J) => c.IsCustomer);
      expect(customers.length).toBeGreaterThanOrEqual(135);
      expect(customers.length).toBeLessThanOrEqual(160);
      const dates = new Map<string, number[]>();
      for (const i of sales()) {
        const list = dates.get(i.Contact.ContactID) ?? [];
        list.push(Date.parse(day(i.Date)) / DAY);
        dates.set(i.Contact.ContactID, list);
      }
      const found = new Set<string>();
      for (const list of dates.values()) {
        const days = [...new Set(list)].sort((a, b) => a - b);
        const gaps = days.slice(1).map((d, k) => d - (days[k] ?? d));
        if (gaps.length === 0) continue;
        const sorted = [...gaps].sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
        const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
        const cv = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length) / mean;
        if (gaps.length >= 4 && median >= 6 && median <= 8) found.add("weekly");
        else if (gaps.length >= 4 && median >= 13 && median <= 16) found.add("fortnightly");
        else if (gaps.length >= 4 && median >= 27 && median <= 34) found.add("monthly");
        else if (gaps.length >= 3 && median >= 86 && median <= 97) found.add("quarterly");
        else if (gaps.length >= 1 && median >= 355 && median <= 372) found.add("annual");
        else if (gaps.length >= 4 && cv > 0.6) found.add("irregular");
      }
      expect([...found].sort()).toEqual([
        "annual",
        "fortnightly",
        "irregular",
        "monthly",
        "quarterly",
        "weekly",
      ]);
    });

    it("has punctual payers, late payers, chronic late payers and bad debts", () => {
      const dueById = new Map(
        sales().map((i: J) => [i.InvoiceID, Date.parse(day(i.DueDate)) / DAY]),
      );
      const delays = new Map<string, number[]>();
      for (const p of ledger.payments) {
        if (p.PaymentType !== "ACCRECPAYMENT") continue;
        const due = dueById.get(p.Invoice.InvoiceID);
        if (due === undefined) continue;
        const list = delays.get(p.Invoice.Contact.ContactID) ?? [];
        list.push(Date.parse(day(p.Date)) / DAY - due);
        delays.set(p.Invoice.Contact.ContactID, list);
      }
      const medians = [...delays.values()]
        .filter((l) => l.length >= 3)
        .map((l) => [...l].sort((a, b) => a - b)[Math.floor(l.length / 2)] ?? 0);
      expect(medians.filter((m) => m <= 0).length).toBeGreaterThan(20);
      expect(medians.filter((m) => m > 0 && m <= 14).length).toBeGreaterThan(10);
      expect(medians.filter((m) => m > 21).length).toBeGreaterThan(5);
      const today = Date.parse(summary.dateRange.to) / DAY;
      const longOverdue = sales().filter(
        (i: J) =>
          i.Status === "AUTHORISED" &&
          i.AmountPaid.isZero() &&
          today - Date.parse(day(i.DueDate)) / DAY > 90,
      );
      expect(longOverdue.length).toBeGreaterThan(0);
      expect(sales().filter((i: J) => i.Status === "VOIDED").length).toBeGreaterThan(0);
      expect(sales().some((i: J) => i.Status === "AUTHORISED" && i.AmountPaid.greaterThan(0))).toBe(
        true,
      );
      expect(sales().some((i: J) => i.ExpectedPaymentDate)).toBe(true);
    });

    it("is seasonal: December revenue beats January's", () => {
      const byMonth = new Map<string, Decimal>();
      for (const i of sales()) {
        if (i.CurrencyCode !== "AUD" || (i.Status !== "PAID" && i.Status !== "AUTHORISED"))
          continue;
        const m = day(i.Date).slice(0, 7);
        byMonth.set(m, (byMonth.get(m) ?? money(0)).plus(i.SubTotal));
      }
      for (const [dec, jan] of [
        ["2024-12", "2025-01"],
        ["2025-12", "2026-01"],
      ] as const) {
        expect(byMonth.get(dec)?.greaterThan(byMonth.get(jan) ?? 0), `${dec} vs ${jan}`).toBe(true);
      }
    });

    it("has open invoices falling due in the coming weeks", () => {
      const upcoming = sales().filter(
        (i: J) => i.Status === "AUTHORISED" && day(i.DueDate) > summary.dateRange.to,
      );
      expect(upcoming.length).toBeGreaterThan(10);
      expect(
        bills().some((b: J) => b.Status === "AUTHORISED" && day(b.DueDate) > summary.dateRange.to),
      ).toBe(true);
    });

    it("has drafts, submitted, voided and deleted documents", () => {
      for (const status of ["DRAFT", "SUBMITTED", "AUTHORISED", "PAID", "VOIDED", "DELETED"]) {
        expect(
          sales().some((i: J) => i.Status === status),
          status,
        ).toBe(true);
      }
      for (const status of ["AUTHORISED", "PAID"])
        expect(bills().some((b: J) => b.Status === status)).toBe(true);
      expect(bills().some((b: J) => b.Status === "DRAFT" || b.Status === "SUBMITTED")).toBe(true);
    });

    it("has three AUD bank accounts, a realistic chart of accounts and the wages account", () => {
      const banks = ledger.accounts.filter((a: J) => a.Type === "BANK");
      expect(banks.map((a: J) => a.Name)).toEqual([
        "Business Cheque",
        "Business Savings",
        "Director Loan Account",
      ]);
      for (const b of banks) expect(b.CurrencyCode).toBe("AUD");
      const types = new Set(ledger.accounts.map((a: J) => a.Type));
      for (const t of [
        "REVENUE",
        "OTHERINCOME",
        "DIRECTCOSTS",
        "EXPENSE",
        "OVERHEADS",
        "BANK",
        "CURRENT",
        "CURRLIAB",
        "EQUITY",
        "FIXED",
      ]) {
        expect(types.has(t), t).toBe(true);
      }
      expect(ledger.accounts.find((a: J) => a.Code === "477")?.Name).toBe("Wages and Salaries");
      expect(summary.sensitiveAccounts.map((a) => a.code)).toEqual(["477", "092"]);
      expect(ledger.org.Timezone).toBe("AUSEASTERNSTANDARDTIME");
      expect(ledger.org.BaseCurrency).toBe("AUD");
    });

    it("pays wages fortnightly through the wages account", () => {
      const runs = ledger.bankTransactions
        .filter((b: J) => b.Type === "SPEND" && b.LineItems.some((l: J) => l.AccountCode === "477"))
        .map((b: J) => Date.parse(day(b.Date)) / DAY)
        .sort((a: number, b: number) => a - b);
      expect(runs.length).toBeGreaterThanOrEqual(50);
      const gaps = runs.slice(1).map((d: number, k: number) => d - (runs[k] ?? 0));
      expect(new Set(gaps)).toEqual(new Set([14]));
    });

    it("has recurring supplier bills and cost of goods coded to DIRECTCOSTS accounts", () => {
      const direct = new Set(
        ledger.accounts.filter((a: J) => a.Type === "DIRECTCOSTS").map((a: J) => a.Code),
      );
      expect(
        bills().filter((b: J) => b.LineItems.some((l: J) => direct.has(l.AccountCode))).length,
      ).toBeGreaterThan(150);
      const rent = bills().filter((b: J) => b.LineItems.some((l: J) => l.AccountCode === "469"));
      expect(rent.length).toBeGreaterThanOrEqual(23);
      expect(
        bills().filter((b: J) => b.LineItems.some((l: J) => l.AccountCode === "485")).length,
      ).toBeGreaterThanOrEqual(60);
    });

    it("has purchase orders, some billed (the bill carries the PO number) and some open", () => {
      const billNumbers = new Map(bills().map((b: J) => [b.InvoiceNumber, b]));
      const billed = ledger.purchaseOrders.filter((p: J) => p.Status === "BILLED");
      expect(billed.length).toBeGreaterThan(20);
      for (const p of billed) {
        const bill = billNumbers.get(p.PurchaseOrderNumber);
        expect(bill, p.PurchaseOrderNumber).toBeDefined();
        expect(bill.Contact.ContactID).toBe(p.Contact.ContactID);
        expect(bill.Total.equals(p.Total)).toBe(true);
      }
      const open = ledger.purchaseOrders.filter(
        (p: J) => p.Status === "AUTHORISED" && day(p.DeliveryDate) > summary.dateRange.to,
      );
      expect(open.length).toBeGreaterThan(0);
      for (const s of ["DRAFT", "SUBMITTED", "DELETED"])
        expect(ledger.purchaseOrders.some((p: J) => p.Status === s)).toBe(true);
    });

    it("has credit notes allocated to invoices, some with credit remaining", () => {
      expect(ledger.creditNotes.some((c: J) => c.Allocations.length > 0)).toBe(true);
      expect(
        ledger.creditNotes.some(
          (c: J) => c.Status === "AUTHORISED" && c.RemainingCredit.greaterThan(0),
        ),
      ).toBe(true);
      expect(sales().some((i: J) => i.AmountCredited.greaterThan(0))).toBe(true);
    });

    it("has USD and NZD documents with their rates, discounts, tax-inclusive documents and GST tax types", () => {
      for (const ccy of ["USD", "NZD"]) {
        const docs = ledger.invoices.filter((i: J) => i.CurrencyCode === ccy);
        expect(docs.length, ccy).toBeGreaterThan(0);
        for (const d of docs) expect(d.CurrencyRate.equals(1)).toBe(false);
      }
      expect(
        sales().some((i: J) => i.LineItems.some((l: J) => l.DiscountRate?.greaterThan(0))),
      ).toBe(true);
      expect(ledger.invoices.some((i: J) => i.LineAmountTypes === "Inclusive")).toBe(true);
      const taxTypes = new Set(
        ledger.invoices.flatMap((i: J) => i.LineItems.map((l: J) => l.TaxType)),
      );
      expect(taxTypes.has("OUTPUT") && taxTypes.has("INPUT")).toBe(true);
    });
  });
});

function isoMinus(iso: string, days: number): string {
  return new Date(Date.parse(iso) - days * DAY).toISOString().slice(0, 10);
}

// Timings are benchmarks, run on request (DEMO_BENCH=1), never in the suite: files run in
// parallel on a shared machine, so a wall-clock bound there says more about the machine.
describe.runIf(process.env.DEMO_BENCH)("generateDemoLedger at benchmark size", () => {
  it("generates the default size in under three seconds", async () => {
    const folder = await tempDir();
    const t0 = performance.now();
    await generateDemoLedger({ seed: SEED, now: NOW, folder });
    const ms = performance.now() - t0;
    console.info(
      `demo ledger, default size (${DEFAULT_DEMO_INVOICES} invoices): ${Math.round(ms)} ms`,
    );
    expect(ms).toBeLessThan(3_000);
  });

  it("writes 100,000 invoices well under a minute", async () => {
    const folder = await tempDir();
    const t0 = performance.now();
    const s = await generateDemoLedger({ seed: "bench", now: NOW, folder, invoices: 100_000 });
    const ms = performance.now() - t0;
    const bytes = s.files.reduce((a, f) => a + f.bytes, 0);
    console.info(
      `demo ledger, 100,000 invoices: ${Math.round(ms)} ms, ${(bytes / 1e6).toFixed(1)} MB`,
      s.counts,
    );
    expect(s.counts.invoices).toBe(100_000);
    expect(ms).toBeLessThan(60_000);
  }, 120_000);
});
