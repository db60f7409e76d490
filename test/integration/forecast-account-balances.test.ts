import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type AccountBalancesResponse,
  AccountBalancesResponseSchema,
} from "../../src/http/routes/agent/account-balances/index.ts";
import { setSensitive } from "../../src/services/sensitivity/set-sensitive.ts";
import { importLedgerFolder, LedgerImportError } from "../../src/services/sync/import-ledger.ts";
import { createTestKey, getJson, TEST_NOW, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";

/*
 * A hand-made export whose balance sheets are written out by hand in the ledger's layout: one
 * report with two columns (31 Jan 2026 and 31 Dec 2025, as `periods=1&timeframe=MONTH` gives)
 * and one with a single column (15 Feb 2026). Every expected figure below is read off these
 * reports, not off the code.
 */
const ID = {
  bank: "b0000000-0000-4000-8000-000000000001",
  loan: "b0000000-0000-4000-8000-000000000002",
  ar: "b0000000-0000-4000-8000-000000000003",
  ap: "b0000000-0000-4000-8000-000000000004",
  gst: "b0000000-0000-4000-8000-000000000005",
  capital: "b0000000-0000-4000-8000-000000000006",
  retained: "b0000000-0000-4000-8000-000000000007",
  sales: "b0000000-0000-4000-8000-000000000008",
  cye: "00000000-0000-0000-0000-000000000000",
};
const ACCOUNTS = [
  {
    AccountID: ID.bank,
    Code: "090",
    Name: "Business Cheque",
    Type: "BANK",
    Class: "ASSET",
    Status: "ACTIVE",
  },
  {
    AccountID: ID.loan,
    Code: "092",
    Name: "Director Loan",
    Type: "BANK",
    Class: "ASSET",
    Status: "ACTIVE",
  },
  {
    AccountID: ID.ar,
    Code: "610",
    Name: "Accounts Receivable",
    Type: "CURRENT",
    Class: "ASSET",
    Status: "ACTIVE",
  },
  {
    AccountID: ID.ap,
    Code: "800",
    Name: "Accounts Payable",
    Type: "CURRLIAB",
    Class: "LIABILITY",
    Status: "ACTIVE",
  },
  {
    AccountID: ID.gst,
    Code: "820",
    Name: "GST",
    Type: "CURRLIAB",
    Class: "LIABILITY",
    Status: "ACTIVE",
  },
  {
    AccountID: ID.capital,
    Code: "970",
    Name: "Owner Funds Introduced",
    Type: "EQUITY",
    Class: "EQUITY",
    Status: "ACTIVE",
  },
  {
    AccountID: ID.retained,
    Code: "960",
    Name: "Retained Earnings",
    Type: "EQUITY",
    Class: "EQUITY",
    Status: "ACTIVE",
  },
  {
    AccountID: ID.sales,
    Code: "200",
    Name: "Sales",
    Type: "REVENUE",
    Class: "REVENUE",
    Status: "ACTIVE",
  },
];

const cell = (value: string, account?: string) =>
  account ? { Value: value, Attributes: [{ Value: account, Id: "account" }] } : { Value: value };
const row = (name: string, account: string, ...values: string[]) => ({
  RowType: "Row",
  Cells: [cell(name, account), ...values.map((v) => cell(v, account))],
});
const summary = (name: string, ...values: string[]) => ({
  RowType: "SummaryRow",
  Cells: [cell(name), ...values.map((v) => cell(v))],
});
const section = (title: string, rows: unknown[]) => ({
  RowType: "Section",
  Title: title,
  Rows: rows,
});

function balanceSheets(overrides: { febBank?: string } = {}) {
  return {
    Id: "x",
    Status: "OK",
    ProviderName: "test",
    DateTimeUTC: "/Date(1767225600000)/",
    Reports: [
      {
        ReportName: "Balance Sheet",
        ReportType: "BalanceSheet",
        ReportDate: "2 March 2026",
        Rows: [
          { RowType: "Header", Cells: [cell(""), cell("31 Jan 2026"), cell("31 Dec 2025")] },
          section("Assets", []),
          section("Bank", [
            row("Business Cheque", ID.bank, "12,500.40", "9000.00"),
            row("Director Loan", ID.loan, "300.00", "0.00"),
            summary("Total Bank", "12800.40", "9000.00"),
          ]),
          section("Current Assets", [row("Accounts Receivable", ID.ar, "4200.00", "3100.50")]),
          section("Current Liabilities", [
            row("Accounts Payable", ID.ap, "1500.00", "900.00"),
            row("GST", ID.gst, "", "120.00"),
          ]),
          section("", [
            { RowType: "Row", Cells: [cell("Net Assets"), cell("15500.40"), cell("11080.50")] },
          ]),
          section("Equity", [
            row("Current Year Earnings", ID.cye, "3500.40", "80.50"),
            row("Retained Earnings", ID.retained, "2000.00", "1000.00"),
            row("Owner Funds Introduced", ID.capital, "10000.00", "10000.00"),
          ]),
        ],
      },
      {
        ReportName: "Balance Sheet",
        ReportType: "BalanceSheet",
        Rows: [
          { RowType: "Header", Cells: [cell(""), cell("2026-02-15")] },
          section("Bank", [row("Business Cheque", ID.bank, overrides.febBank ?? "-250.75")]),
          section("Current Assets", [row("Accounts Receivable", ID.ar, "8000")]),
          section("Equity", [
            row("Current Year Earnings", ID.cye, "-2250.75"),
            row("Owner Funds Introduced", ID.capital, "10000"),
          ]),
        ],
      },
    ],
  };
}

function exportFolder(sheets: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "balance-sheets-"));
  const write = (file: string, body: unknown) =>
    writeFileSync(join(dir, file), JSON.stringify(body));
  write("Organisation.json", {
    Organisations: [
      { OrganisationID: "org-bs", BaseCurrency: "AUD", Timezone: "AUSEASTERNSTANDARDTIME" },
    ],
  });
  write("Accounts.json", { Accounts: ACCOUNTS });
  write("Contacts.json", { Contacts: [] });
  write("Invoices.json", { Invoices: [] });
  mkdirSync(join(dir, "Reports"));
  if (sheets !== null) write("Reports/BalanceSheet.json", sheets);
  return dir;
}

describe(`GET /api/agent/account-balances (${testDriver})`, () => {
  async function world() {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    const run = await importLedgerFolder(t.db, {
      orgId: org.id,
      folder: exportFolder(balanceSheets()),
      now: TEST_NOW,
    });
    const key = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "a",
      scopes: ["READ_ACCOUNTS"],
    });
    const full = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "s",
      scopes: ["READ_ACCOUNTS"],
      sensitive: true,
    });
    const get = async (query: string, k = key.key) =>
      getJson<AccountBalancesResponse>(t.app, `/api/agent/account-balances${query}`, k);
    const idOf = async (code: string) => {
      const r = await get("?asAtDate=2026-01-31", full.key);
      return r.body.accounts.find((a) => a.code === code)?.id;
    };
    return { t, org, run, key, full, get, idOf };
  }

  it("gives the balances of the report date itself, by class then code", async () => {
    const w = await world();
    expect(w.run.counts.balanceSheets).toEqual({ read: 20, written: 20 });
    const r = await w.get("?asAtDate=2026-01-31", w.full.key);
    expect(r.status, r.text).toBe(200);
    expect(AccountBalancesResponseSchema.parse(r.body)).toEqual(r.body);
    const strip = r.body.accounts.map(({ id: _id, ...a }) => a);
    expect(r.body).toMatchObject({ asAtDate: "2026-01-31", currency: "AUD", redactedItemCount: 0 });
    expect(strip).toEqual([
      { code: "090", name: "Business Cheque", type: "BANK", class: "ASSET", balance: "12500.4" },
      { code: "092", name: "Director Loan", type: "BANK", class: "ASSET", balance: "300" },
      {
        code: "610",
        name: "Accounts Receivable",
        type: "CURRENT",
        class: "ASSET",
        balance: "4200",
      },
      {
        code: "800",
        name: "Accounts Payable",
        type: "CURRLIAB",
        class: "LIABILITY",
        balance: "1500",
      },
      { code: "820", name: "GST", type: "CURRLIAB", class: "LIABILITY", balance: "0" },
      { code: "960", name: "Retained Earnings", type: "EQUITY", class: "EQUITY", balance: "2000" },
      {
        code: "970",
        name: "Owner Funds Introduced",
        type: "EQUITY",
        class: "EQUITY",
        balance: "10000",
      },
      {
        code: "",
        name: "Current Year Earnings",
        type: "EQUITY",
        class: "EQUITY",
        balance: "3500.4",
      },
    ]);
    expect(r.body.accounts.at(-1)?.id).toBe("current_year_earnings");
    expect(r.body.accounts[0]?.id).toMatch(/^acc_/);
  });

  it("as at a date between reports: the latest report on or before it; none before the first", async () => {
    const w = await world();
    const between = await w.get("?asAtDate=2026-02-14", w.full.key);
    expect(between.body.asAtDate).toBe("2026-02-14");
    expect(between.body.accounts.find((a) => a.code === "090")?.balance).toBe("12500.4");
    const dec = await w.get("?asAtDate=2026-01-01", w.full.key);
    expect(dec.body.accounts.find((a) => a.code === "610")?.balance).toBe("3100.5");
    expect(dec.body.accounts.find((a) => a.code === "820")?.balance).toBe("120");
    const feb = await w.get("?asAtDate=2026-02-15", w.full.key);
    expect(feb.body.accounts.map((a) => [a.code, a.balance])).toEqual([
      ["090", "-250.75"],
      ["610", "8000"],
      ["970", "10000"],
      ["", "-2250.75"],
    ]);
    const later = await w.get("?asAtDate=2030-12-31", w.full.key);
    expect(later.body.accounts).toEqual(feb.body.accounts);
    // Default: today in the organisation's timezone (2 March 2026 in Sydney).
    const today = await w.get("", w.full.key);
    expect(today.body).toMatchObject({ asAtDate: "2026-03-02", accounts: feb.body.accounts });
    const before = await w.get("?asAtDate=2025-12-30", w.full.key);
    expect(before.body).toEqual({
      asAtDate: "2025-12-30",
      currency: "AUD",
      accounts: [],
      redactedItemCount: 0,
    });
  });

  it("renames sensitive accounts and blanks their code, never the balance", async () => {
    const w = await world();
    await setSensitive(w.t.db, { orgId: w.org.id, target: { account: "092" }, sensitive: true });
    const plain = await w.get("?asAtDate=2026-01-31");
    const loanId = await w.idOf("092");
    expect(plain.body.redactedItemCount).toBe(1);
    expect(plain.body.accounts[1]).toEqual({
      id: loanId,
      code: "",
      name: "Sensitive account",
      type: "BANK",
      class: "ASSET",
      balance: "300",
    });
    expect(plain.text).not.toContain("Director");
    const full = await w.get("?asAtDate=2026-01-31", w.full.key);
    expect(full.body.accounts.map((a) => a.balance)).toEqual(
      plain.body.accounts.map((a) => a.balance),
    );
    expect(full.body.redactedItemCount).toBe(0);
  });

  it.each(["2026-02-30", "20260131", "yesterday", "2026-1-5", "2026-13-01", "0000-01-01"])(
    "answers 400 invalid_parameter for asAtDate=%s",
    async (bad) => {
      const w = await world();
      const r = await w.get(`?asAtDate=${bad}`);
      expect([r.status, r.body]).toMatchObject([
        400,
        { error: "invalid_parameter", parameter: "asAtDate" },
      ]);
    },
  );

  it("does not reflect a long bad value back in full", async () => {
    const w = await world();
    const r = await w.get(`?asAtDate=${"9".repeat(5000)}`);
    expect([r.status, r.body]).toMatchObject([
      400,
      {
        error: "invalid_parameter",
        message: `asAtDate must be a date as YYYY-MM-DD, got "${"9".repeat(40)}…"`,
      },
    ]);
  });

  it("needs READ_ACCOUNTS", async () => {
    const w = await world();
    const k = await createTestKey(w.t.db, {
      kind: "ORG",
      orgId: w.org.id,
      label: "f",
      scopes: ["READ_FORECAST", "READ_BANK"],
    });
    const r = await w.get("", k.key);
    expect([r.status, (r.body as unknown as { error: string }).error]).toEqual([
      403,
      "insufficient_scope",
    ]);
  });

  it("re-imports idempotently, replaces changed figures and removes what the export dropped", async () => {
    const w = await world();
    const again = await importLedgerFolder(w.t.db, {
      orgId: w.org.id,
      folder: exportFolder(balanceSheets()),
      now: TEST_NOW,
    });
    expect(again.counts.balanceSheets).toEqual({ read: 20, written: 0 });
    const changed = await importLedgerFolder(w.t.db, {
      orgId: w.org.id,
      folder: exportFolder(balanceSheets({ febBank: "99.99" })),
      now: TEST_NOW,
    });
    expect(changed.counts.balanceSheets).toEqual({ read: 20, written: 1 });
    expect((await w.get("?asAtDate=2026-02-15")).body.accounts[0]?.balance).toBe("99.99");
    const gone = await importLedgerFolder(w.t.db, {
      orgId: w.org.id,
      folder: exportFolder(null),
      now: TEST_NOW,
    });
    expect(gone.counts.balanceSheets).toEqual({ read: 0, written: 20 });
    expect((await w.get("?asAtDate=2026-02-15")).body.accounts).toEqual([]);
  });

  it("refuses a malformed balance sheet, naming the report, row and column", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    const bad = balanceSheets({ febBank: "n/a" });
    const err = await importLedgerFolder(t.db, {
      orgId: org.id,
      folder: exportFolder(bad),
      now: TEST_NOW,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(LedgerImportError);
    expect(err.message).toBe(
      `BalanceSheet report: Reports[1] row "Business Cheque" (account ${ID.bank}): 2026-02-15: expected a number within ±90071992547409.91 with at most 20 decimals, got "n/a"`,
    );
    const noDate = balanceSheets();
    (noDate.Reports[1] as { Rows: { Cells?: unknown[] }[] }).Rows[0] = {
      RowType: "Header",
      Cells: [cell(""), cell("Feb")],
    } as never;
    const err2 = await importLedgerFolder(t.db, {
      orgId: org.id,
      folder: exportFolder(noDate),
      now: TEST_NOW,
    }).catch((e) => e);
    expect(err2.message).toBe(
      'BalanceSheet report: Reports[1]: Header.Cells[1]: expected a date such as "30 Apr 2019", got "Feb"',
    );
  });
});
