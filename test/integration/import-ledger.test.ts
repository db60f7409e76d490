import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { and, asc, eq } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import {
  bankAccounts,
  bankTransactions,
  cashItemLines,
  cashItems,
  contacts,
  creditNoteAllocations,
  creditNoteLines,
  creditNotes,
  ledgerAccounts,
  ledgerConnections,
  organisations,
  payments,
  purchaseOrderLines,
  purchaseOrders,
  syncRuns,
} from "../../src/db/schema/index.ts";
import { NotFoundError } from "../../src/services/errors.ts";
import {
  failureText,
  importLedgerFolder,
  LedgerImportError,
} from "../../src/services/sync/import-ledger.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/ledger-small", import.meta.url));
const NOW = new Date("2024-04-02T01:00:00.000Z");
const LATER = new Date("2024-04-03T01:00:00.000Z");
const FEB_1 = new Date("2024-02-01T00:00:00.000Z");

// Fixture ids (see test/fixtures/ledger-small).
const id = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${String(n).padStart(12, "0")}`;
const ORG = id("7d3b6b62", 1);
const A = (n: number) => id("a0000000", n);
const C = (n: number) => id("c0000000", n);
const I = (n: number) => id("10000000", n);
const B = (n: number) => id("20000000", n);
const CN = (n: number) => id("30000000", n);
const PO = (n: number) => id("40000000", n);
const P = (n: number) => id("50000000", n);
const L = (n: number) => id("70000000", n);

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown[]>;
const set = (record: unknown, field: string, value: unknown) => {
  (record as Record<string, unknown>)[field] = value;
};

/** A copy of the fixture; `edits` maps a file to a change of its parsed JSON. */
function fixtureCopy(
  edits: Record<string, (json: Record<string, unknown[]>) => void> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), "ledger-import-"));
  temps.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
    const path = join(dir, file);
    const json = JSON.parse(readFileSync(path, "utf8"));
    edit(json);
    writeFileSync(path, JSON.stringify(json));
  }
  return dir;
}

const PROJECTION_TABLES = {
  ledgerAccounts,
  bankAccounts,
  contacts,
  cashItems,
  cashItemLines,
  creditNotes,
  creditNoteAllocations,
  creditNoteLines,
  purchaseOrders,
  purchaseOrderLines,
  payments,
  bankTransactions,
} as const;

/** The organisation's rows of a projection table, by id. */
async function rowsOf<T extends PgTable>(
  db: Db,
  table: T,
  orgId: string,
): Promise<T["$inferSelect"][]> {
  // Every projection table has org_id and id; the cast gives the query builder those columns.
  const t = table as unknown as typeof ledgerAccounts;
  return (await db
    .select()
    .from(t)
    .where(eq(t.orgId, orgId))
    .orderBy(asc(t.id))) as T["$inferSelect"][];
}

/** Every row the import owns for the organisation, plus its organisation and connection rows. */
async function snapshot(db: Db, orgId: string) {
  const out: Record<string, unknown[]> = {};
  for (const [name, table] of Object.entries(PROJECTION_TABLES)) {
    out[name] = await rowsOf(db, table, orgId);
  }
  out.organisation = await db.select().from(organisations).where(eq(organisations.id, orgId));
  out.connection = await db
    .select()
    .from(ledgerConnections)
    .where(eq(ledgerConnections.orgId, orgId));
  return out;
}

async function newOrg() {
  const { db } = await getTestDatabase();
  const org = await createTestOrg(db, { name: "Import Test Org" });
  return { db, orgId: org.id };
}

function byExternalId<T extends { externalId: string | null }>(rows: T[], externalId: string): T {
  const row = rows.find((r) => r.externalId === externalId);
  if (!row) throw new Error(`no row ${externalId}`);
  return row;
}

describe(`ledger import (${testDriver})`, () => {
  it("maps every column of the small export", async () => {
    const { db, orgId } = await newOrg();
    const result = await importLedgerFolder(db, { orgId, folder: FIXTURE, now: NOW });

    expect(result).toEqual({
      syncRunId: expect.stringMatching(/^syn_/),
      outcome: "succeeded",
      counts: {
        organisation: { read: 1, written: 1 },
        accounts: { read: 9, written: 9 },
        bankAccounts: { read: 3, written: 3 },
        contacts: { read: 5, written: 5 },
        payments: { read: 6, written: 6 },
        invoices: { read: 6, written: 6 },
        bills: { read: 2, written: 2 },
        creditNotes: { read: 2, written: 2 },
        purchaseOrders: { read: 1, written: 1 },
        bankTransactions: { read: 1, written: 1 },
      },
    });

    // Organisation: our name stays; the ledger's settings come in, the timezone mapped to IANA.
    const [org] = await db.select().from(organisations).where(eq(organisations.id, orgId));
    expect(org).toMatchObject({
      name: "Import Test Org",
      baseCurrency: "AUD",
      timezone: "Australia/Brisbane",
      financialYearEndDay: 31,
      financialYearEndMonth: 3,
      ledgerOrganisationId: ORG,
    });

    const [connection] = await db
      .select()
      .from(ledgerConnections)
      .where(eq(ledgerConnections.orgId, orgId));
    expect(connection).toEqual({
      id: expect.stringMatching(/^con_/),
      orgId,
      provider: "export_folder",
      sourceRef: FIXTURE,
      status: "active",
      lastSuccessfulSyncAt: NOW,
      lastError: null,
      createdAt: expect.any(Date),
    });

    const runs = await db.select().from(syncRuns).where(eq(syncRuns.orgId, orgId));
    expect(runs).toEqual([
      {
        id: result.syncRunId,
        orgId,
        connectionId: connection?.id,
        source: `export_folder:${FIXTURE}`,
        startedAt: NOW,
        finishedAt: expect.any(Date),
        outcome: "succeeded",
        counts: result.counts,
        error: null,
        ledgerCalls: null,
        progress: null,
      },
    ]);
    expect(runs[0]?.finishedAt?.getTime()).toBeGreaterThanOrEqual(NOW.getTime());

    // Chart of accounts.
    const accounts = await rowsOf(db, ledgerAccounts, orgId);
    expect(accounts).toHaveLength(9);
    expect(byExternalId(accounts, A(1))).toEqual({
      id: expect.stringMatching(/^acc_/),
      orgId,
      externalId: A(1),
      code: "090",
      name: "Business Cheque",
      type: "BANK",
      class: "ASSET",
      status: "ACTIVE",
      systemAccount: null,
      reportingCode: "ASS.CUR.CAS.BAN",
      bankAccountType: "BANK",
      bankAccountNumber: "062-000 1234 5678",
      currency: "AUD",
      taxType: null,
      isSensitive: false,
      // The owner's category choices (/settings/categories): none yet, so the defaults apply.
      includeInBurn: null,
      pnlPosition: null,
      updatedAt: FEB_1,
    });
    expect(byExternalId(accounts, A(30))).toMatchObject({
      code: "610",
      type: "CURRENT",
      systemAccount: "DEBTORS",
      taxType: "BASEXCLUDED",
      bankAccountType: null,
      currency: null,
    });

    // Bank accounts: Type BANK, balances from BankSummary's Closing Balance.
    const banks = await rowsOf(db, bankAccounts, orgId);
    expect(banks).toHaveLength(3);
    expect(byExternalId(banks, A(1))).toEqual({
      id: expect.stringMatching(/^bank_/),
      orgId,
      ledgerAccountId: byExternalId(accounts, A(1)).id,
      externalId: A(1),
      name: "Business Cheque",
      currency: "AUD",
      reconciledBalance: "12345.67",
      statementBalance: "12345.67",
      balanceSource: "RECONCILED",
      balanceSyncedAt: NOW,
      isActive: true,
    });
    expect(byExternalId(banks, A(2))).toMatchObject({
      currency: "USD",
      reconciledBalance: "0.1",
      statementBalance: "0.1",
      isActive: true,
    });
    expect(byExternalId(banks, A(3))).toMatchObject({
      name: "Company Visa",
      reconciledBalance: "-321.09",
      isActive: false,
    });

    // Contacts.
    const people = await rowsOf(db, contacts, orgId);
    expect(people).toHaveLength(5);
    expect(byExternalId(people, C(1))).toEqual({
      id: expect.stringMatching(/^ctc_/),
      orgId,
      externalId: C(1),
      name: "Acme Corp",
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ap@acme.example",
      contactNumber: "C-001",
      accountNumber: "ACME",
      contactStatus: "ACTIVE",
      isCustomer: true,
      isSupplier: false,
      isSensitive: false,
      defaultCurrency: "AUD",
      mergedToContactId: null,
      ledgerUpdatedAt: FEB_1,
      lastSyncedAt: NOW,
    });
    // "/Date(…+1300)/": the milliseconds are UTC, the offset does not move the instant.
    expect(byExternalId(people, C(2)).ledgerUpdatedAt).toEqual(new Date("2024-02-01T12:00:00Z"));
    expect(byExternalId(people, C(3))).toMatchObject({
      email: null,
      isCustomer: false,
      isSupplier: true,
      ledgerUpdatedAt: new Date("2024-02-01T09:30:00Z"),
    });
    expect(byExternalId(people, C(4))).toMatchObject({
      contactStatus: "ARCHIVED",
      isCustomer: true,
      isSupplier: true,
      ledgerUpdatedAt: null,
    });
    expect(byExternalId(people, C(5)).mergedToContactId).toBe(C(1));

    // Invoices and bills.
    const items = await rowsOf(db, cashItems, orgId);
    expect(items).toHaveLength(8);
    const lines = await rowsOf(db, cashItemLines, orgId);
    const linesOf = (externalId: string) => {
      const item = byExternalId(items, externalId);
      return lines
        .filter((l) => l.cashItemId === item.id)
        .sort((a, b) => a.lineNumber - b.lineNumber)
        .map(({ id: lineId, orgId: lineOrg, cashItemId, ...rest }) => {
          expect(lineId).toMatch(/^cil_/);
          expect(lineOrg).toBe(orgId);
          return rest;
        });
    };

    expect(byExternalId(items, I(1))).toEqual({
      id: expect.stringMatching(/^ci_/),
      orgId,
      source: "LEDGER_INVOICE",
      externalId: I(1),
      invoiceNumber: "INV-0001",
      reference: "PO 7781",
      contactExternalId: C(1),
      contactName: "Acme Corp",
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      lineAmountTypes: "Exclusive",
      currency: "AUD",
      currencyRate: "1",
      subTotal: "900.1",
      totalTax: "90.01",
      amount: "990.11",
      amountDue: "940.11",
      amountPaid: "0",
      amountCredited: "50",
      issueDate: "2024-01-10",
      dueDate: "2024-02-09",
      expectedDate: "2024-02-15",
      actualDate: null,
      documentDate: "2024-01-10",
      category: "200",
      probability: null,
      ledgerUpdatedAt: new Date("2024-01-11T00:00:00Z"),
      lastSyncedAt: NOW,
      syncHash: expect.any(String),
    });
    expect(linesOf(I(1))).toEqual([
      {
        lineNumber: 1,
        externalId: L(11),
        description: "Widgets",
        quantity: "10",
        unitAmount: "100",
        itemCode: null,
        accountCode: "200",
        accountExternalId: A(10),
        taxType: "OUTPUT",
        taxAmount: "90",
        lineAmount: "900",
        discountRate: "0.1",
        discountAmount: null,
      },
      {
        lineNumber: 2,
        externalId: L(12),
        description: "Freight included",
        quantity: null,
        unitAmount: null,
        itemCode: null,
        accountCode: null,
        accountExternalId: null,
        taxType: null,
        taxAmount: "0",
        lineAmount: "0",
        discountRate: null,
        discountAmount: null,
      },
      {
        lineNumber: 3,
        externalId: L(13),
        description: "Setup fee",
        quantity: "1",
        unitAmount: "0.1",
        itemCode: null,
        accountCode: "210",
        accountExternalId: A(11),
        taxType: "OUTPUT",
        taxAmount: "0.01",
        lineAmount: "0.1",
        discountRate: null,
        discountAmount: null,
      },
    ]);

    // Inclusive tax, an absolute discount, PAID with FullyPaidOnDate, empty Reference.
    expect(byExternalId(items, I(2))).toMatchObject({
      reference: null,
      status: "ACTUAL",
      ledgerStatus: "PAID",
      lineAmountTypes: "Inclusive",
      subTotal: "281.27",
      totalTax: "28.13",
      amount: "309.4",
      amountDue: "0",
      amountPaid: "309.4",
      expectedDate: "2024-02-14",
      actualDate: "2024-02-01",
      category: "210",
      ledgerUpdatedAt: new Date("2024-02-01T03:00:00Z"),
    });
    expect(linesOf(I(2))).toEqual([
      expect.objectContaining({
        lineNumber: 1,
        quantity: "2",
        unitAmount: "50.135",
        taxAmount: "10.03",
        lineAmount: "100.27",
        accountCode: "200",
        discountRate: null,
        discountAmount: null,
      }),
      expect.objectContaining({
        lineNumber: 2,
        description: "Consulting day",
        quantity: "1",
        unitAmount: "200",
        taxAmount: "18",
        lineAmount: "180",
        discountRate: null,
        discountAmount: "22",
      }),
      // 1.10 − 0.10: exactly 1, where floats give 1.0000000000000002.
      expect.objectContaining({
        lineNumber: 3,
        unitAmount: "1",
        lineAmount: "1",
        taxAmount: "0.1",
      }),
    ]);

    // Foreign currency, part-paid, ISO-encoded dates, money that must not pass through floats.
    expect(byExternalId(items, I(3))).toMatchObject({
      contactName: "Globex Inc",
      reference: "Globex Q1",
      status: "FORECAST",
      currency: "USD",
      currencyRate: "0.654321",
      amount: "1234567.891",
      amountDue: "1234567.791",
      amountPaid: "0.1",
      issueDate: "2024-03-01",
      dueDate: "2024-03-31",
      expectedDate: "2024-03-31",
      actualDate: null,
      ledgerUpdatedAt: new Date("2024-03-05T10:00:00Z"),
    });
    expect(linesOf(I(3))).toEqual([
      expect.objectContaining({
        quantity: "3",
        unitAmount: "411522.6303",
        taxType: "EXEMPTEXPORT",
        taxAmount: "0",
        lineAmount: "1234567.891",
      }),
    ]);

    expect(byExternalId(items, I(4))).toMatchObject({
      status: "CANCELLED",
      ledgerStatus: "VOIDED",
    });
    expect(byExternalId(items, I(5))).toMatchObject({
      status: "CANCELLED",
      ledgerStatus: "DELETED",
      dueDate: null,
      expectedDate: "2023-12-05",
      category: null,
      currencyRate: null,
      lineAmountTypes: "NoTax",
    });
    expect(linesOf(I(5))).toEqual([]);
    // DRAFT; contact name from Contacts.json; account code found from the line's AccountID.
    expect(byExternalId(items, I(6))).toMatchObject({
      status: "FORECAST",
      ledgerStatus: "DRAFT",
      contactExternalId: C(4),
      contactName: "Both Ways Ltd",
      issueDate: "2024-04-01",
      expectedDate: "2024-04-01",
      category: "210",
      ledgerUpdatedAt: null,
    });
    expect(linesOf(I(6))).toEqual([
      expect.objectContaining({ quantity: "2.5", accountCode: "210", accountExternalId: A(11) }),
    ]);

    // Bills: reference is InvoiceNumber; PlannedPaymentDate; no discounts.
    expect(byExternalId(items, B(1))).toMatchObject({
      source: "LEDGER_BILL",
      invoiceNumber: "RENT-2024-03",
      reference: "RENT-2024-03",
      contactName: "Office Landlord Pty",
      status: "FORECAST",
      expectedDate: "2024-03-28",
      dueDate: "2024-03-31",
      amount: "2200",
      category: "469",
    });
    expect(linesOf(B(1))).toEqual([
      expect.objectContaining({ lineAmount: "2000", discountRate: null, discountAmount: null }),
    ]);
    // PAID without FullyPaidOnDate: the latest non-deleted payment in Payments.json.
    expect(byExternalId(items, B(2))).toMatchObject({
      source: "LEDGER_BILL",
      reference: "SUP-889",
      status: "ACTUAL",
      actualDate: "2024-02-20",
      category: "310",
    });

    // Credit notes, their live allocations and lines.
    const notes = await rowsOf(db, creditNotes, orgId);
    expect(notes).toHaveLength(2);
    const cn1 = byExternalId(notes, CN(1));
    expect(cn1).toEqual({
      id: expect.stringMatching(/^cn_/),
      orgId,
      externalId: CN(1),
      type: "ACCRECCREDIT",
      creditNoteNumber: "CN-0001",
      reference: "Returned widgets",
      contactExternalId: C(1),
      contactName: "Acme Corp",
      issueDate: "2024-02-05",
      dueDate: null,
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      lineAmountTypes: "Exclusive",
      subTotal: "100",
      totalTax: "10",
      total: "110",
      remainingCredit: "40",
      currency: "AUD",
      currencyRate: "1",
      fullyPaidOnDate: null,
      ledgerUpdatedAt: FEB_1,
      lastSyncedAt: NOW,
      syncHash: expect.any(String),
    });
    expect(byExternalId(notes, CN(2))).toMatchObject({
      type: "ACCPAYCREDIT",
      status: "CANCELLED",
      ledgerStatus: "VOIDED",
      remainingCredit: "25",
    });
    expect(await rowsOf(db, creditNoteAllocations, orgId)).toEqual([
      {
        id: expect.stringMatching(/^cna_/),
        orgId,
        creditNoteId: cn1.id,
        externalId: id("80000000", 1),
        invoiceExternalId: I(1),
        invoiceNumber: "INV-0001",
        amount: "50",
        date: "2024-02-05",
      },
    ]);
    expect(await rowsOf(db, creditNoteLines, orgId)).toEqual([
      {
        id: expect.stringMatching(/^cnl_/),
        orgId,
        creditNoteId: cn1.id,
        lineNumber: 1,
        externalId: L(91),
        description: "Returned widgets",
        quantity: "1",
        unitAmount: "100",
        itemCode: "WIDGET",
        accountCode: "200",
        taxType: "OUTPUT",
        taxAmount: "10",
        lineAmount: "100",
      },
    ]);

    // Purchase orders and lines; suppressedReason is left null.
    const orders = await rowsOf(db, purchaseOrders, orgId);
    expect(orders).toEqual([
      {
        id: expect.stringMatching(/^po_/),
        orgId,
        externalId: PO(1),
        purchaseOrderNumber: "PO-0001",
        reference: "Spring stock",
        contactExternalId: C(4),
        contactName: "Both Ways Ltd",
        status: "AUTHORISED",
        issueDate: "2024-03-05",
        deliveryDate: "2024-03-20",
        expectedArrivalDate: "2024-03-19",
        lineAmountTypes: "Exclusive",
        subTotal: "102",
        totalTax: "10.2",
        total: "112.2",
        currency: "AUD",
        currencyRate: "1",
        suppressedReason: null,
        ledgerUpdatedAt: FEB_1,
        lastSyncedAt: NOW,
        syncHash: expect.any(String),
      },
    ]);
    expect(await rowsOf(db, purchaseOrderLines, orgId)).toEqual([
      {
        id: expect.stringMatching(/^pol_/),
        orgId,
        purchaseOrderId: orders[0]?.id,
        lineNumber: 1,
        externalId: L(101),
        description: "Widget stock",
        quantity: "4",
        unitAmount: "25.5",
        itemCode: "WIDGET",
        accountCode: "310",
        taxType: "INPUT",
        taxAmount: "10.2",
        lineAmount: "102",
      },
    ]);

    // Payments.
    const paid = await rowsOf(db, payments, orgId);
    expect(paid).toHaveLength(6);
    expect(byExternalId(paid, P(1))).toEqual({
      id: expect.stringMatching(/^pay_/),
      orgId,
      externalId: P(1),
      paymentType: "ACCRECPAYMENT",
      status: "AUTHORISED",
      invoiceExternalId: I(2),
      creditNoteExternalId: null,
      bankAccountExternalId: A(1),
      date: "2024-02-01",
      amount: "309.4",
      bankAmount: "309.4",
      currencyRate: "1",
      reference: "Acme remittance",
      isReconciled: true,
    });
    expect(byExternalId(paid, P(2))).toMatchObject({
      amount: "0.1",
      currencyRate: "0.654321",
      bankAccountExternalId: A(2),
      reference: null,
      isReconciled: false,
    });
    expect(byExternalId(paid, P(4))).toMatchObject({ amount: "600", bankAmount: "600" });
    expect(byExternalId(paid, P(5))).toMatchObject({
      paymentType: "ARCREDITPAYMENT",
      invoiceExternalId: null,
      creditNoteExternalId: CN(1),
    });
    expect(byExternalId(paid, P(6)).status).toBe("DELETED");

    // Bank transactions.
    expect(await rowsOf(db, bankTransactions, orgId)).toEqual([
      {
        id: expect.stringMatching(/^btx_/),
        orgId,
        externalId: id("60000000", 1),
        type: "SPEND",
        status: "AUTHORISED",
        bankAccountExternalId: A(1),
        contactExternalId: C(3),
        contactName: "Office Landlord Pty",
        date: "2024-03-10",
        reference: "Coffee machine",
        currency: "AUD",
        subTotal: "40",
        totalTax: "4",
        total: "44",
        isReconciled: true,
        accountCode: "469",
        ledgerUpdatedAt: FEB_1,
      },
    ]);
  });

  it("is idempotent: the same export again changes no row, id or lastSyncedAt", async () => {
    const { db, orgId } = await newOrg();
    await importLedgerFolder(db, { orgId, folder: FIXTURE, now: NOW });
    const before = await snapshot(db, orgId);

    const same = await importLedgerFolder(db, { orgId, folder: FIXTURE, now: NOW });
    expect(await snapshot(db, orgId)).toEqual(before);
    for (const [name, count] of Object.entries(same.counts)) {
      expect(count.written, name).toBe(0);
    }

    // Later: only the balance's sync time and the connection's last success move.
    const later = await importLedgerFolder(db, { orgId, folder: FIXTURE, now: LATER });
    const after = await snapshot(db, orgId);
    const expected = {
      ...before,
      bankAccounts: (before.bankAccounts as Record<string, unknown>[]).map((r) => ({
        ...r,
        balanceSyncedAt: LATER,
      })),
      connection: (before.connection as Record<string, unknown>[]).map((r) => ({
        ...r,
        lastSuccessfulSyncAt: LATER,
      })),
    };
    expect(after).toEqual(expected);
    for (const [name, count] of Object.entries(later.counts)) {
      expect(count.written, name).toBe(name === "bankAccounts" ? 3 : 0);
    }
    const runs = await db.select().from(syncRuns).where(eq(syncRuns.orgId, orgId));
    expect(runs.map((r) => r.outcome)).toEqual(["succeeded", "succeeded", "succeeded"]);
  });

  it("is atomic: a malformed record half-way leaves the projection as it was and records the failure", async () => {
    const { db, orgId } = await newOrg();
    await importLedgerFolder(db, { orgId, folder: FIXTURE, now: NOW });
    const before = await snapshot(db, orgId);

    // Contacts and payments (read before invoices) change too: their writes must roll back.
    const broken = fixtureCopy({
      "Contacts.json": (json) => {
        (json.Contacts?.[0] as Record<string, unknown>).Name = "Acme Renamed";
      },
      "Payments.json": (json) => {
        json.Payments?.splice(0, 1);
      },
      "Invoices.json": (json) => {
        (json.Invoices?.[4] as Record<string, unknown>).Total = "abc";
      },
    });
    const error = await importLedgerFolder(db, { orgId, folder: broken, now: LATER }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LedgerImportError);
    const message = `Invoices.json: Invoices[4] (InvoiceID ${I(5)}): Total: expected a number within ±90071992547409.91 with at most 20 decimals, got "abc"`;
    expect((error as LedgerImportError).message).toBe(message);

    expect(await snapshot(db, orgId)).toEqual({
      ...before,
      // Only the connection's last error is recorded, outside the rolled-back transaction.
      connection: (before.connection as Record<string, unknown>[]).map((r) => ({
        ...r,
        lastError: message,
      })),
    });

    const runs = await db
      .select()
      .from(syncRuns)
      .where(eq(syncRuns.orgId, orgId))
      .orderBy(asc(syncRuns.startedAt));
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({
      id: (error as LedgerImportError).result.syncRunId,
      outcome: "failed",
      error: message,
      startedAt: LATER,
      source: `export_folder:${broken}`,
    });
    expect(runs[1]?.finishedAt).toBeInstanceOf(Date);
    // Counts reached before the failure are kept for diagnosis.
    expect(runs[1]?.counts).toMatchObject({ contacts: { read: 5, written: 1 } });
    expect((error as LedgerImportError).result).toMatchObject({
      outcome: "failed",
      error: message,
    });
  });

  it.each([
    [
      "an amount beyond the forecast's exact range (it would be a billion digits written out)",
      { "Invoices.json": (j: Json) => set(j.Invoices?.[2], "Total", "1e1000000000") },
      {},
      /^Invoices\.json: Invoices\[2\] \(InvoiceID [^)]+\): Total: expected a number within ±90071992547409\.91 with at most 20 decimals, got "1e1000000000"$/,
    ],
    [
      "a bank balance beyond it",
      {
        "Reports/BankSummary.json": (j: Json) => {
          const text = JSON.stringify(j).replace(/"Value":"(-?[\d.,]+)"/g, '"Value":"1e30"');
          Object.assign(j, JSON.parse(text));
        },
      },
      {},
      /^BankSummary report: .*expected a number within ±90071992547409\.91/,
    ],
    [
      "a date in the year 10000",
      {
        "Invoices.json": (j: Json) => set(j.Invoices?.[2], "Date", "/Date(253402300800000+0000)/"),
      },
      {},
      /^Invoices\.json: Invoices\[2\] \(InvoiceID [^)]+\): Date: expected a date/,
    ],
    [
      "a date in the year 0",
      { "Invoices.json": (j: Json) => set(j.Invoices?.[2], "Date", "0000-01-01") },
      {},
      /^Invoices\.json: Invoices\[2\] \(InvoiceID [^)]+\): Date: expected a date/,
    ],
    [
      "a NUL in a name",
      { "Contacts.json": (j: Json) => set(j.Contacts?.[1], "Name", "Bad\u0000Name") },
      {},
      /^Contacts\.json: Contacts\[1\] \(ContactID [^)]+\): Name: expected a string without NUL characters, got "Bad\\u0000Name"$/,
    ],
    [
      "report rows nested 20,000 deep",
      {},
      {
        // Written as text: JSON.stringify itself runs out of stack at this depth.
        "Reports/BankSummary.json": (bytes: Buffer) =>
          Buffer.from(
            bytes
              .toString("utf8")
              .replace(
                /"Rows":\s*\[/,
                `"Rows": [${'{"RowType":"Section","Rows":['.repeat(20_000)}${"]}".repeat(20_000)},`,
              ),
          ),
      },
      /^Reports\/BankSummary\.json: Reports\[0\]( \([^)]*\))?: Rows: rows nest more than 32 levels deep$/,
    ],
    [
      "a file in UTF-16",
      {},
      {
        "Accounts.json": (bytes: Buffer) =>
          Buffer.concat([
            Buffer.from([0xff, 0xfe]),
            Buffer.from(bytes.toString("utf8"), "utf16le"),
          ]),
      },
      /^Accounts\.json: is UTF-16; the export must be UTF-8$/,
    ],
    [
      "a file in Latin-1",
      {},
      {
        "Contacts.json": (bytes: Buffer) =>
          Buffer.from(bytes.toString("utf8").replace(/"Name":\s*"/, '"Name": "Café '), "latin1"),
      },
      /^Contacts\.json: is not valid UTF-8 \(the fault is in bytes 0–\d+\); the export must be UTF-8$/,
    ],
    [
      "a number literal JSON does not allow",
      {},
      {
        "Invoices.json": (bytes: Buffer) =>
          Buffer.from(bytes.toString("utf8").replace(/"Total":\s*([\d.]+)/, '"Total": 0012')),
      },
      /^Invoices\.json: invalid JSON: /,
    ],
  ] as const)(
    "refuses %s with one clear line, and records the failed run",
    async (_name, edits, raw, expected) => {
      const { db, orgId } = await newOrg();
      const folder = fixtureCopy(edits as Record<string, (json: Json) => void>);
      for (const [file, edit] of Object.entries(raw as Record<string, (b: Buffer) => Buffer>)) {
        writeFileSync(join(folder, file), edit(readFileSync(join(folder, file))));
      }
      const error = await importLedgerFolder(db, { orgId, folder, now: NOW }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LedgerImportError);
      const message = (error as LedgerImportError).message;
      expect(message).toMatch(expected);
      expect(message.length).toBeLessThanOrEqual(1000);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: checking there are none
      expect(message).not.toMatch(/[\u0000-\u001f]/);
      const runs = await db.select().from(syncRuns).where(eq(syncRuns.orgId, orgId));
      expect(runs.map((r) => [r.outcome, r.error])).toEqual([["failed", message]]);
      expect(await snapshot(db, orgId)).toMatchObject({ cashItems: [], contacts: [] });
    },
  );

  it("records a failure's text without control characters, cut, and without the SQL of a failed write", () => {
    const dbError = Object.assign(
      new Error("Failed query: insert into contacts … params: Jane,jane@x"),
      {
        cause: new Error('invalid byte sequence for encoding "UTF8": 0x00'),
      },
    );
    expect(failureText(dbError)).toBe(
      'the database refused a write: invalid byte sequence for encoding "UTF8": 0x00',
    );
    expect(failureText(new Error("bad\u0000byte"))).toBe("bad\\u0000byte");
    const long = failureText(new Error("x".repeat(5000)));
    expect(long).toHaveLength(1000);
    expect(long.endsWith("…")).toBe(true);
  });

  it("keeps service-owned flags (isSensitive) across re-imports that change the rows, and recomputes suppressedReason", async () => {
    const { db, orgId } = await newOrg();
    await importLedgerFolder(db, { orgId, folder: FIXTURE, now: NOW });
    await db
      .update(ledgerAccounts)
      .set({ isSensitive: true })
      .where(and(eq(ledgerAccounts.orgId, orgId), eq(ledgerAccounts.externalId, A(22))));
    await db
      .update(contacts)
      .set({ isSensitive: true })
      .where(and(eq(contacts.orgId, orgId), eq(contacts.externalId, C(1))));
    await db
      .update(purchaseOrders)
      .set({ suppressedReason: "REFERENCE" })
      .where(and(eq(purchaseOrders.orgId, orgId), eq(purchaseOrders.externalId, PO(1))));

    const changed = fixtureCopy({
      "Accounts.json": (json) => {
        const wages = json.Accounts?.find(
          (a) => (a as Record<string, unknown>).AccountID === A(22),
        ) as Record<string, unknown>;
        wages.Name = "Salaries";
      },
      "Contacts.json": (json) => {
        (json.Contacts?.[0] as Record<string, unknown>).EmailAddress = "accounts@acme.example";
      },
      "PurchaseOrders.json": (json) => {
        (json.PurchaseOrders?.[0] as Record<string, unknown>).Reference = "Spring stock v2";
      },
    });
    const result = await importLedgerFolder(db, { orgId, folder: changed, now: LATER });
    expect(result.counts.accounts?.written).toBe(1);
    expect(result.counts.contacts?.written).toBe(1);
    expect(result.counts.purchaseOrders?.written).toBe(1);

    const wages = byExternalId(await rowsOf(db, ledgerAccounts, orgId), A(22));
    expect(wages).toMatchObject({ name: "Salaries", isSensitive: true });
    const people = await rowsOf(db, contacts, orgId);
    expect(byExternalId(people, C(1))).toMatchObject({
      email: "accounts@acme.example",
      isSensitive: true,
      lastSyncedAt: LATER,
    });
    // An unchanged contact keeps its lastSyncedAt.
    expect(byExternalId(people, C(2)).lastSyncedAt).toEqual(NOW);
    const [order] = await rowsOf(db, purchaseOrders, orgId);
    // suppressedReason is the bill matcher's, recomputed from the snapshot at every import
    // (docs/documents.md): no bill covers PO-0001, so the stale value does not survive.
    expect(order).toMatchObject({
      reference: "Spring stock v2",
      suppressedReason: null,
      lastSyncedAt: LATER,
    });
  });

  it("removes what the snapshot no longer holds and rewrites only changed documents", async () => {
    const { db, orgId } = await newOrg();
    await importLedgerFolder(db, { orgId, folder: FIXTURE, now: NOW });
    const before = await snapshot(db, orgId);
    const itemsBefore = before.cashItems as (typeof cashItems.$inferSelect)[];
    const linesBefore = before.cashItemLines as (typeof cashItemLines.$inferSelect)[];

    const smaller = fixtureCopy({
      "Accounts.json": (json) => {
        json.Accounts = json.Accounts?.filter(
          (a) => (a as Record<string, unknown>).AccountID !== A(3),
        ) as unknown[];
      },
      "Contacts.json": (json) => {
        json.Contacts?.pop();
      },
      "Invoices.json": (json) => {
        json.Invoices?.splice(3, 1); // INV-0004
        const first = json.Invoices?.[0] as { LineItems: Record<string, unknown>[] };
        (first.LineItems[1] as Record<string, unknown>).Description = "Freight (free)";
      },
      "CreditNotes.json": (json) => {
        json.CreditNotes?.splice(0, 1);
      },
      "Payments.json": (json) => {
        json.Payments?.pop();
      },
    });
    rmSync(join(smaller, "PurchaseOrders.json"));
    rmSync(join(smaller, "BankTransactions.json"));
    const result = await importLedgerFolder(db, { orgId, folder: smaller, now: LATER });
    expect(result.counts).toMatchObject({
      accounts: { read: 8, written: 1 },
      bankAccounts: { read: 2, written: 3 },
      contacts: { read: 4, written: 1 },
      payments: { read: 5, written: 1 },
      invoices: { read: 5, written: 2 },
      bills: { read: 2, written: 0 },
      creditNotes: { read: 1, written: 1 },
      purchaseOrders: { read: 0, written: 1 },
      bankTransactions: { read: 0, written: 1 },
    });

    const accounts = await rowsOf(db, ledgerAccounts, orgId);
    expect(accounts.map((a) => a.externalId)).not.toContain(A(3));
    const banks = await rowsOf(db, bankAccounts, orgId);
    expect(banks.map((b) => b.externalId).sort()).toEqual([A(1), A(2)]);
    expect((await rowsOf(db, contacts, orgId)).map((c) => c.externalId)).not.toContain(C(5));
    expect((await rowsOf(db, payments, orgId)).map((p) => p.externalId)).not.toContain(P(6));
    expect(await rowsOf(db, purchaseOrders, orgId)).toEqual([]);
    expect(await rowsOf(db, purchaseOrderLines, orgId)).toEqual([]);
    expect(await rowsOf(db, bankTransactions, orgId)).toEqual([]);
    const notes = await rowsOf(db, creditNotes, orgId);
    expect(notes.map((n) => n.externalId)).toEqual([CN(2)]);
    expect(await rowsOf(db, creditNoteAllocations, orgId)).toEqual([]);
    expect(await rowsOf(db, creditNoteLines, orgId)).toEqual([]);

    const items = await rowsOf(db, cashItems, orgId);
    expect(items.map((i) => i.externalId)).not.toContain(I(4));
    const lines = await rowsOf(db, cashItemLines, orgId);
    const removed = byExternalId(itemsBefore, I(4));
    expect(lines.filter((l) => l.cashItemId === removed.id)).toEqual([]);

    // The edited invoice keeps its id, gets fresh lines and a new lastSyncedAt.
    const edited = byExternalId(items, I(1));
    expect(edited.id).toBe(byExternalId(itemsBefore, I(1)).id);
    expect(edited.lastSyncedAt).toEqual(LATER);
    const editedLines = lines.filter((l) => l.cashItemId === edited.id);
    expect(editedLines.map((l) => l.description)).toEqual(
      expect.arrayContaining(["Widgets", "Freight (free)", "Setup fee"]),
    );
    expect(editedLines).toHaveLength(3);
    // INV-0002 was untouched: same row, same line rows.
    const untouched = byExternalId(items, I(2));
    expect(untouched).toEqual(byExternalId(itemsBefore, I(2)));
    expect(lines.filter((l) => l.cashItemId === untouched.id)).toEqual(
      linesBefore.filter((l) => l.cashItemId === untouched.id),
    );
  });

  it("refuses an organisation that does not exist, recording nothing", async () => {
    const { db } = await getTestDatabase();
    await expect(
      importLedgerFolder(db, { orgId: "org_missing", folder: FIXTURE, now: NOW }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(await db.select().from(syncRuns).where(eq(syncRuns.orgId, "org_missing"))).toEqual([]);
  });

  it("keeps each organisation's projection apart", async () => {
    const one = await newOrg();
    const two = await newOrg();
    await importLedgerFolder(one.db, { orgId: one.orgId, folder: FIXTURE, now: NOW });
    await importLedgerFolder(two.db, { orgId: two.orgId, folder: FIXTURE, now: NOW });
    const a = await rowsOf(one.db, cashItems, one.orgId);
    const b = await rowsOf(two.db, cashItems, two.orgId);
    expect(a).toHaveLength(8);
    expect(b).toHaveLength(8);
    const idsOfTwo = new Set(b.map((r) => r.id));
    expect(a.filter((r) => idsOfTwo.has(r.id))).toEqual([]);
    // A third import into the first organisation does not touch the second.
    const smaller = fixtureCopy({
      "Invoices.json": (json) => {
        json.Invoices = [];
      },
    });
    await importLedgerFolder(one.db, { orgId: one.orgId, folder: smaller, now: LATER });
    expect(await rowsOf(one.db, cashItems, one.orgId)).toEqual([]);
    expect(await rowsOf(two.db, cashItems, two.orgId)).toEqual(b);
  });
});
