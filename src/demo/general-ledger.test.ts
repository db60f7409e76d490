import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { money, sum } from "../domain/money.ts";
import { CURRENT_YEAR_EARNINGS } from "./general-ledger.ts";
import { type DemoSummary, generateDemoLedger } from "./generate.ts";

interface Cell {
  Value: string;
  Attributes?: { Id: string; Value: string }[];
}
interface Row {
  RowType: string;
  Title?: string;
  Cells?: Cell[];
  Rows?: Row[];
}
interface Report {
  Rows: Row[];
}

const NOW = new Date("2026-03-10T01:00:00Z");
let folder: string;
let summary: DemoSummary;
let reports: Report[];
// biome-ignore lint/suspicious/noExplicitAny: raw ledger JSON in a test
let file: Record<string, any[]>;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "demo-gl-"));
  summary = await generateDemoLedger({ seed: "gl", now: NOW, folder });
  reports = JSON.parse(await readFile(join(folder, "Reports/BalanceSheet.json"), "utf8")).Reports;
  file = {};
  for (const [name, key] of [
    ["Invoices.json", "Invoices"],
    ["CreditNotes.json", "CreditNotes"],
    ["Accounts.json", "Accounts"],
    ["BankTransactions.json", "BankTransactions"],
  ] as const) {
    file[key] = JSON.parse(await readFile(join(folder, name), "utf8"))[key];
  }
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const ASSET_SECTIONS = new Set(["Bank", "Current Assets", "Fixed Assets", "Non-current Assets"]);
function balances(report: Report) {
  const out = new Map<string, { section: string; value: string }>();
  for (const s of report.Rows) {
    if (s.RowType !== "Section") continue;
    for (const r of s.Rows ?? []) {
      const id = r.Cells?.[0]?.Attributes?.find((a) => a.Id === "account")?.Value;
      if (id) out.set(id, { section: s.Title ?? "", value: r.Cells?.[1]?.Value ?? "" });
    }
  }
  return out;
}
const headerDate = (r: Report) => r.Rows[0]?.Cells?.[1]?.Value;
/** A report's date, or a ledger `/Date(ms+0000)/`, as epoch milliseconds. */
const reportMs = (r: Report) => new Date(`${headerDate(r)} UTC`).getTime();
const ledgerMs = (d: string) => Number(/\/Date\((-?\d+)/.exec(d)?.[1]);

describe("the demo's balance sheets (Reports/BalanceSheet.json)", () => {
  it("has one single-column report per day a balance changed, ending today", () => {
    expect(reports.length).toBeGreaterThan(300);
    expect(headerDate(reports[reports.length - 1] as Report)).toBe("10 Mar 2026");
    const dates = reports.map((r) => new Date(`${headerDate(r)} UTC`).getTime());
    expect([...dates].sort((a, b) => a - b)).toEqual(dates);
    expect(new Set(dates).size).toBe(dates.length);
  });

  it("balances on every day: assets = liabilities + equity", () => {
    for (const r of reports) {
      let assets = money(0);
      let claims = money(0);
      for (const [, b] of balances(r)) {
        if (ASSET_SECTIONS.has(b.section)) assets = assets.plus(b.value);
        else claims = claims.plus(b.value);
      }
      expect(assets.toFixed(2), headerDate(r)).toBe(claims.toFixed(2));
    }
  });

  it("agrees with the documents: bank = BankSummary, receivables = open invoices less unused credit", () => {
    const today = balances(reports[reports.length - 1] as Report);
    for (const a of summary.bankSummary.accounts) {
      expect(today.get(a.accountId)?.value, a.name).toBe(a.closingBalance);
    }
    const ar = file.Accounts?.find((a) => a.SystemAccount === "DEBTORS")?.AccountID;
    const ap = file.Accounts?.find((a) => a.SystemAccount === "CREDITORS")?.AccountID;
    // AUD documents only: foreign ones are converted at their own rates, checked by the balance.
    const aud = (d: { CurrencyCode: string }) => d.CurrencyCode === "AUD";
    const open = (type: string) =>
      sum(
        (file.Invoices ?? [])
          .filter((i) => i.Type === type && i.Status === "AUTHORISED" && aud(i))
          .map((i) => String(i.AmountDue)),
      );
    const credit = sum(
      (file.CreditNotes ?? [])
        .filter((c) => c.Status === "AUTHORISED" && aud(c))
        .map((c) => String(c.RemainingCredit)),
    );
    const foreign = (type: string) =>
      sum(
        (file.Invoices ?? [])
          .filter((i) => i.Type === type && i.Status === "AUTHORISED" && !aud(i))
          .map((i) => money(String(i.AmountDue)).div(String(i.CurrencyRate)).toFixed(2)),
      );
    // Receivables equal the AUD open amounts plus the foreign ones at their invoice rates (to
    // within a cent per foreign document).
    const arValue = money(today.get(ar ?? "")?.value ?? "0");
    const expected = open("ACCREC").minus(credit).plus(foreign("ACCREC"));
    expect(arValue.minus(expected).abs().toNumber()).toBeLessThan(0.05);
    const apValue = money(today.get(ap ?? "")?.value ?? "0");
    expect(
      apValue
        .minus(open("ACCPAY").plus(foreign("ACCPAY")))
        .abs()
        .toNumber(),
    ).toBeLessThan(0.05);
    expect(today.has(CURRENT_YEAR_EARNINGS)).toBe(true);
  });

  it("accrues PAYG withheld on each pay run and clears it with the BAS: never a debit balance", () => {
    const accounts = file.Accounts ?? [];
    const paygId = accounts.find((a) => a.Code === "825")?.AccountID;
    expect(paygId).toBeDefined();
    const txns = (file.BankTransactions ?? []).filter((t) => t.Status === "AUTHORISED");
    // Pay runs: the gross wages on the (sensitive) wages account first, the PAYG withheld as a
    // negative line on the liability, the net pay as the bank total.
    const payRuns = txns.filter((t) => String(t.Reference).startsWith("Pay run"));
    expect(payRuns.length).toBeGreaterThanOrEqual(50);
    for (const t of payRuns) {
      const [gross, payg] = t.LineItems;
      expect([t.LineItems.length, gross.AccountCode, payg.AccountCode]).toEqual([2, "477", "825"]);
      expect(money(String(payg.LineAmount)).isNegative()).toBe(true);
      expect(money(String(t.Total)).toFixed(2)).toBe(
        money(String(gross.LineAmount)).plus(String(payg.LineAmount)).toFixed(2),
      );
    }
    // The liability on every report = PAYG withheld − PAYG paid to the tax office by that day.
    const movements = txns
      .flatMap((t) =>
        t.LineItems.filter((l: { AccountCode: string }) => l.AccountCode === "825").map(
          (l: { LineAmount: number }) => ({
            ms: ledgerMs(t.Date),
            credit: money(String(l.LineAmount)).times(t.Type === "SPEND" ? -1 : 1),
          }),
        ),
      )
      .sort((a, b) => a.ms - b.ms);
    expect(movements.some((m) => m.credit.isNegative())).toBe(true); // BAS payments happened
    let owed = money(0);
    let k = 0;
    let seen = 0;
    for (const r of reports) {
      while (k < movements.length && (movements[k]?.ms ?? 0) <= reportMs(r)) {
        owed = owed.plus(movements[k]?.credit ?? 0);
        k += 1;
      }
      const row = balances(r).get(paygId ?? "");
      if (!row) {
        expect(owed.isZero(), headerDate(r)).toBe(true);
        continue;
      }
      seen += 1;
      expect(row.section).toBe("Current Liabilities");
      expect(row.value, headerDate(r)).toBe(owed.toFixed(2));
      expect(money(row.value).isNegative(), `${headerDate(r)}: ${row.value}`).toBe(false);
    }
    expect(seen).toBeGreaterThan(300);
  });
});
