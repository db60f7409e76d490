import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import type { Plan } from "../../src/db/schema/index.ts";
import { contacts, ledgerAccounts } from "../../src/db/schema/index.ts";
import type { Scope } from "../../src/domain/scopes.ts";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import { importLedgerFolder } from "../../src/services/sync/import-ledger.ts";
import { createTestKey, type TestApp, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";

/*
 * Hand-made ledger exports for the summaries, cohorts, baselines and brief suites: a compact
 * description of documents becomes an export folder in the ledger's own shapes
 * (docs/ledger-export.md), imported through the real importer into a fresh organisation.
 */

const gid = (prefix: string, n: number) =>
  `${prefix}-0000-4000-8000-${String(n).padStart(12, "0")}`;
export const ACC = (n: number) => gid("a0000000", n);
export const CON = (n: number) => gid("c0000000", n);
export const DOC = (n: number) => gid("10000000", n);
export const PAY = (n: number) => gid("50000000", n);
export const TXN = (n: number) => gid("60000000", n);

/** The chart every export carries: a bank account, sales, cost of goods, rent, wages. */
export const ACCOUNTS = {
  bank: { id: ACC(1), code: "090", name: "Business Cheque", type: "BANK", class: "ASSET" },
  savings: { id: ACC(2), code: "091", name: "Director Loan Account", type: "BANK", class: "ASSET" },
  sales: { id: ACC(10), code: "200", name: "Sales", type: "REVENUE", class: "REVENUE" },
  cogs: {
    id: ACC(20),
    code: "310",
    name: "Cost of Goods Sold",
    type: "DIRECTCOSTS",
    class: "EXPENSE",
  },
  rent: { id: ACC(30), code: "469", name: "Rent", type: "EXPENSE", class: "EXPENSE" },
  wages: {
    id: ACC(31),
    code: "477",
    name: "Wages and Salaries",
    type: "EXPENSE",
    class: "EXPENSE",
  },
} as const;
export type AccountKey = keyof typeof ACCOUNTS;

export interface ContactSpec {
  n: number;
  name: string;
  customer?: boolean;
  supplier?: boolean;
}

export interface LineSpec {
  account: AccountKey;
  /** Ex-tax amount (Exclusive) or tax-inclusive amount (Inclusive), as the ledger's LineAmount. */
  amount: string;
  tax?: string;
}

export interface PaymentSpec {
  n: number;
  date: string;
  amount: string;
  rate?: string;
  status?: "AUTHORISED" | "DELETED";
}

export interface DocSpec {
  n: number;
  type?: "ACCREC" | "ACCPAY";
  contact: number;
  date: string;
  due?: string;
  status: "DRAFT" | "SUBMITTED" | "AUTHORISED" | "PAID" | "VOIDED" | "DELETED";
  lines: LineSpec[];
  amountTypes?: "Exclusive" | "Inclusive" | "NoTax";
  currency?: string;
  rate?: string;
  payments?: PaymentSpec[];
  /** For PAID documents without payment rows: FullyPaidOnDate and AmountPaid. */
  paidOn?: string;
}

export interface TxnSpec {
  n: number;
  type: "SPEND" | "RECEIVE" | "SPEND-TRANSFER" | "RECEIVE-TRANSFER";
  date: string;
  total: string;
  contact?: number;
  account: AccountKey;
  bank?: AccountKey;
  status?: "AUTHORISED" | "VOIDED";
}

export interface ExportSpec {
  name?: string;
  timezone?: string;
  yearEnd?: { month: number; day: number };
  contacts: ContactSpec[];
  docs: DocSpec[];
  txns?: TxnSpec[];
}

const dec = (s: string) => Number(s);
const cents = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

/** Writes the export folder of `spec` to a new temporary directory and returns its path. */
export function writeExport(spec: ExportSpec): string {
  const dir = mkdtempSync(join(tmpdir(), "cr-insights-"));
  const env = (key: string, items: unknown[]) => JSON.stringify({ Status: "OK", [key]: items });
  writeFileSync(
    join(dir, "Organisation.json"),
    env("Organisations", [
      {
        OrganisationID: "7d3b6b62-0000-4000-8000-000000000042",
        Name: spec.name ?? "Insights Pty Ltd",
        BaseCurrency: "AUD",
        Timezone: spec.timezone ?? "AUSEASTERNSTANDARDTIME",
        FinancialYearEndDay: spec.yearEnd?.day ?? 30,
        FinancialYearEndMonth: spec.yearEnd?.month ?? 6,
      },
    ]),
  );
  writeFileSync(
    join(dir, "Accounts.json"),
    env(
      "Accounts",
      Object.values(ACCOUNTS).map((a) => ({
        AccountID: a.id,
        Code: a.code,
        Name: a.name,
        Type: a.type,
        Class: a.class,
        Status: "ACTIVE",
        ...(a.type === "BANK" ? { BankAccountType: "BANK", CurrencyCode: "AUD" } : {}),
      })),
    ),
  );
  const contactName = new Map(spec.contacts.map((c) => [c.n, c.name]));
  writeFileSync(
    join(dir, "Contacts.json"),
    env(
      "Contacts",
      spec.contacts.map((c) => ({
        ContactID: CON(c.n),
        Name: c.name,
        ContactStatus: "ACTIVE",
        IsCustomer: c.customer ?? false,
        IsSupplier: c.supplier ?? false,
      })),
    ),
  );
  const payments: unknown[] = [];
  const invoices = spec.docs.map((d) => {
    const type = d.type ?? "ACCREC";
    const inclusive = d.amountTypes === "Inclusive";
    const lineTotal = d.lines.reduce((t, l) => t + dec(l.amount), 0);
    const tax = d.lines.reduce((t, l) => t + dec(l.tax ?? "0"), 0);
    const total = inclusive ? lineTotal : lineTotal + tax;
    const paid = (d.payments ?? [])
      .filter((p) => p.status !== "DELETED")
      .reduce((t, p) => t + dec(p.amount), 0);
    const paidAmount = d.paidOn ? total : paid;
    const due = d.status === "VOIDED" || d.status === "DELETED" ? 0 : total - paidAmount;
    for (const p of d.payments ?? []) {
      payments.push({
        PaymentID: PAY(p.n),
        Date: p.date,
        Amount: p.amount,
        CurrencyRate: p.rate ?? d.rate ?? "1",
        Status: p.status ?? "AUTHORISED",
        PaymentType: type === "ACCREC" ? "ACCRECPAYMENT" : "ACCPAYPAYMENT",
        IsReconciled: true,
        Account: { AccountID: ACCOUNTS.bank.id },
        Invoice: { InvoiceID: DOC(d.n), Type: type },
      });
    }
    const lastPayment = [...(d.payments ?? [])]
      .filter((p) => p.status !== "DELETED")
      .sort((a, b) => (a.date < b.date ? 1 : -1))[0];
    return {
      Type: type,
      InvoiceID: DOC(d.n),
      InvoiceNumber: `${type === "ACCREC" ? "INV" : "BILL"}-${String(d.n).padStart(4, "0")}`,
      Contact: { ContactID: CON(d.contact), Name: contactName.get(d.contact) ?? "" },
      Date: d.date,
      DueDate: d.due ?? d.date,
      Status: d.status,
      LineAmountTypes: d.amountTypes ?? "Exclusive",
      LineItems: d.lines.map((l, i) => ({
        LineItemID: gid("70000000", d.n * 10 + i),
        Description: `${ACCOUNTS[l.account].name} line`,
        Quantity: "1",
        UnitAmount: l.amount,
        AccountCode: ACCOUNTS[l.account].code,
        TaxType: dec(l.tax ?? "0") === 0 ? "NONE" : type === "ACCREC" ? "OUTPUT" : "INPUT",
        TaxAmount: l.tax ?? "0",
        LineAmount: l.amount,
      })),
      SubTotal: cents(total - tax),
      TotalTax: cents(tax),
      Total: cents(total),
      AmountDue: cents(due),
      AmountPaid: cents(paidAmount),
      AmountCredited: "0",
      CurrencyCode: d.currency ?? "AUD",
      CurrencyRate: d.rate ?? "1",
      ...(d.status === "PAID" ? { FullyPaidOnDate: d.paidOn ?? lastPayment?.date ?? d.date } : {}),
    };
  });
  writeFileSync(join(dir, "Invoices.json"), env("Invoices", invoices));
  writeFileSync(join(dir, "Payments.json"), env("Payments", payments));
  writeFileSync(
    join(dir, "BankTransactions.json"),
    env(
      "BankTransactions",
      (spec.txns ?? []).map((t) => ({
        BankTransactionID: TXN(t.n),
        Type: t.type,
        Status: t.status ?? "AUTHORISED",
        BankAccount: { AccountID: ACCOUNTS[t.bank ?? "bank"].id },
        Date: t.date,
        Total: t.total,
        SubTotal: t.total,
        TotalTax: "0",
        CurrencyCode: "AUD",
        LineAmountTypes: "NoTax",
        IsReconciled: true,
        ...(t.contact
          ? { Contact: { ContactID: CON(t.contact), Name: contactName.get(t.contact) } }
          : {}),
        LineItems: [
          { Description: "line", AccountCode: ACCOUNTS[t.account].code, LineAmount: t.total },
        ],
      })),
    ),
  );
  mkdirSync(join(dir, "Reports"), { recursive: true });
  return dir;
}

export const SUMMARY_READ: Scope[] = ["READ_SUMMARY", "READ_CONTACTS", "READ_FORECAST"];

export interface InsightsWorld {
  t: TestApp;
  orgId: string;
  /** SUMMARY_READ without READ_SENSITIVE. */
  plain: string;
  /** SUMMARY_READ with READ_SENSITIVE. */
  sensitive: string;
  folder: string;
}

/**
 * A fresh organisation with `spec` imported at `now` (the import computes forecasts, baselines
 * and insights, as in production), the listed contacts and accounts flagged sensitive, and two
 * keys.
 */
export async function insightsWorld(
  spec: ExportSpec,
  opts: {
    now: Date;
    sensitiveContacts?: number[];
    sensitiveAccounts?: AccountKey[];
    plan?: Plan;
  },
): Promise<InsightsWorld> {
  const t = await testApp({ now: opts.now, metering: noopMetering });
  const org = await createTestOrg(t.db, {
    name: spec.name ?? "Insights Org",
    now: opts.now,
    plan: opts.plan,
  });
  const folder = writeExport(spec);
  await importLedgerFolder(t.db, { orgId: org.id, folder, now: opts.now });
  // Flags are service-owned (they survive imports) and read when answering, so setting them
  // after the import is what an operator would do.
  await flagSensitive(t, org.id, opts);
  const plain = await createTestKey(
    t.db,
    { kind: "ORG", orgId: org.id, label: "plain", scopes: SUMMARY_READ },
    opts.now,
  );
  const sensitive = await createTestKey(
    t.db,
    { kind: "ORG", orgId: org.id, label: "sensitive", scopes: SUMMARY_READ, sensitive: true },
    opts.now,
  );
  return { t, orgId: org.id, plain: plain.key, sensitive: sensitive.key, folder };
}

async function flagSensitive(
  t: TestApp,
  orgId: string,
  opts: { sensitiveContacts?: number[]; sensitiveAccounts?: AccountKey[] },
) {
  for (const n of opts.sensitiveContacts ?? []) {
    await t.db
      .update(contacts)
      .set({ isSensitive: true })
      .where(and(eq(contacts.orgId, orgId), eq(contacts.externalId, CON(n))));
  }
  for (const a of opts.sensitiveAccounts ?? []) {
    await t.db
      .update(ledgerAccounts)
      .set({ isSensitive: true })
      .where(and(eq(ledgerAccounts.orgId, orgId), eq(ledgerAccounts.externalId, ACCOUNTS[a].id)));
  }
}

/** Query-string builder that drops undefined values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join("&")}` : "";
}
