import { describe, expect, it } from "vitest";
import { LedgerFormatError } from "../../connector/errors.ts";
import type { XeroInvoice, XeroReport } from "../../connector/ledger-source.ts";
import {
  cashStatus,
  closingBalances,
  dominantAccountCode,
  type MappingContext,
  mapBankAccount,
  mapContact,
  mapCreditNote,
  mapInvoice,
  mapInvoiceLine,
  mapOrganisation,
  mapPayment,
} from "./map-ledger.ts";

const ctx = (over: Partial<MappingContext> = {}): MappingContext => ({
  baseCurrency: "AUD",
  accountsByCode: new Map([
    ["200", { externalId: "acc-200", code: "200", name: "Sales", type: "REVENUE" }],
  ]),
  accountsById: new Map([
    ["acc-210", { externalId: "acc-210", code: "210", name: "Consulting", type: "REVENUE" }],
  ]),
  contactNames: new Map([["ct-1", "Acme Corp"]]),
  lastPaymentDates: new Map(),
  ...over,
});

const invoice = (over: Partial<XeroInvoice> = {}): XeroInvoice => ({
  Type: "ACCREC",
  InvoiceID: "inv-1",
  Date: "2024-01-10",
  Status: "AUTHORISED",
  Total: "110",
  ...over,
});

describe("cashStatus", () => {
  it.each([
    ["PAID", "ACTUAL"],
    ["VOIDED", "CANCELLED"],
    ["DELETED", "CANCELLED"],
    ["DRAFT", "FORECAST"],
    ["SUBMITTED", "FORECAST"],
    ["AUTHORISED", "FORECAST"],
  ] as const)("maps %s to %s", (ledger, cash) => {
    expect(cashStatus(ledger)).toBe(cash);
  });
});

describe("mapInvoiceLine", () => {
  it("subtracts tax on Inclusive documents, exactly, and scales the unit amount to ex-tax", () => {
    const line = mapInvoiceLine(
      { Quantity: "1", UnitAmount: "1.1", TaxAmount: "0.1", LineAmount: "1.1", AccountCode: "200" },
      0,
      { Type: "ACCREC", LineAmountTypes: "Inclusive" },
      ctx(),
    );
    // In floats 1.1 - 0.1 is 1.0000000000000002.
    expect(line).toMatchObject({ lineAmount: "1", unitAmount: "1", taxAmount: "0.1" });
  });

  it("keeps LineAmount as the ex-tax amount on Exclusive and NoTax documents", () => {
    for (const types of ["Exclusive", "NoTax", undefined] as const) {
      const line = mapInvoiceLine(
        { Quantity: "10", UnitAmount: "100", TaxAmount: "90", LineAmount: "900" },
        2,
        { Type: "ACCREC", LineAmountTypes: types },
        ctx(),
      );
      expect(line).toMatchObject({ lineNumber: 3, lineAmount: "900", unitAmount: "100" });
    }
  });

  it("turns the percentage discount into a fraction on sales invoices, and drops discounts on bills", () => {
    const l = { DiscountRate: "12.5", DiscountAmount: "3", LineAmount: "10" };
    expect(mapInvoiceLine(l, 0, { Type: "ACCREC" }, ctx())).toMatchObject({
      discountRate: "0.125",
      discountAmount: "3",
    });
    expect(mapInvoiceLine(l, 0, { Type: "ACCPAY" }, ctx())).toMatchObject({
      discountRate: null,
      discountAmount: null,
    });
  });

  it("treats a zero discount as none", () => {
    const l = { DiscountRate: "0", DiscountAmount: "0.00", LineAmount: "10" };
    expect(mapInvoiceLine(l, 0, { Type: "ACCREC" }, ctx())).toMatchObject({
      discountRate: null,
      discountAmount: null,
    });
  });

  it("leaves quantity and unit amount null on description-only lines", () => {
    expect(mapInvoiceLine({ Description: "Note" }, 0, { Type: "ACCREC" }, ctx())).toEqual({
      lineNumber: 1,
      externalId: null,
      description: "Note",
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
    });
  });

  it("completes the account from the chart: code from AccountID, AccountID from code", () => {
    expect(mapInvoiceLine({ AccountID: "acc-210" }, 0, { Type: "ACCREC" }, ctx())).toMatchObject({
      accountCode: "210",
      accountExternalId: "acc-210",
    });
    expect(mapInvoiceLine({ AccountCode: "200" }, 0, { Type: "ACCREC" }, ctx())).toMatchObject({
      accountCode: "200",
      accountExternalId: "acc-200",
    });
  });
});

describe("dominantAccountCode", () => {
  it("takes the coded line with the largest absolute ex-tax amount, the first on a tie", () => {
    expect(
      dominantAccountCode([
        { accountCode: "200", lineAmount: "100" },
        { accountCode: null, lineAmount: "5000" },
        { accountCode: "310", lineAmount: "-250" },
        { accountCode: "400", lineAmount: "250" },
      ]),
    ).toBe("310");
    expect(dominantAccountCode([{ accountCode: null, lineAmount: "1" }])).toBeNull();
    expect(dominantAccountCode([])).toBeNull();
  });
});

describe("mapInvoice", () => {
  it("dates: ExpectedPaymentDate on sales, PlannedPaymentDate on bills, else DueDate, else Date", () => {
    const dates = {
      DueDate: "2024-02-09",
      ExpectedPaymentDate: "2024-02-15",
      PlannedPaymentDate: "2024-02-20",
    };
    expect(mapInvoice(invoice(dates), ctx()).item.expectedDate).toBe("2024-02-15");
    expect(mapInvoice(invoice({ ...dates, Type: "ACCPAY" }), ctx()).item.expectedDate).toBe(
      "2024-02-20",
    );
    expect(mapInvoice(invoice({ DueDate: "2024-02-09" }), ctx()).item.expectedDate).toBe(
      "2024-02-09",
    );
    expect(mapInvoice(invoice(), ctx()).item.expectedDate).toBe("2024-01-10");
  });

  it("actual date: FullyPaidOnDate, else the latest payment of a PAID document, else none", () => {
    const payments = { Payments: [{ Date: "2024-02-03" }, { Date: "2024-02-01" }] };
    const later = ctx({ lastPaymentDates: new Map([["inv-1", "2024-02-05"]]) });
    expect(
      mapInvoice(invoice({ Status: "PAID", FullyPaidOnDate: "2024-02-02", ...payments }), later)
        .item.actualDate,
    ).toBe("2024-02-02");
    expect(mapInvoice(invoice({ Status: "PAID", ...payments }), ctx()).item.actualDate).toBe(
      "2024-02-03",
    );
    expect(mapInvoice(invoice({ Status: "PAID", ...payments }), later).item.actualDate).toBe(
      "2024-02-05",
    );
    expect(mapInvoice(invoice(payments), later).item.actualDate).toBeNull();
  });

  it("reference: Reference on sales invoices, InvoiceNumber on bills; empty is null", () => {
    const fields = { InvoiceNumber: "B-1", Reference: "R-1" };
    expect(mapInvoice(invoice(fields), ctx()).item.reference).toBe("R-1");
    expect(mapInvoice(invoice({ ...fields, Type: "ACCPAY" }), ctx()).item).toMatchObject({
      source: "LEDGER_BILL",
      reference: "B-1",
    });
    expect(mapInvoice(invoice({ Reference: "" }), ctx()).item.reference).toBeNull();
  });

  it("falls back to the base currency and to the contact's name from the contacts", () => {
    const { item } = mapInvoice(invoice({ Contact: { ContactID: "ct-1" } }), ctx());
    expect(item).toMatchObject({
      currency: "AUD",
      contactExternalId: "ct-1",
      contactName: "Acme Corp",
      amount: "110",
      category: null,
    });
  });
});

describe("mapCreditNote", () => {
  it("skips deleted allocations and takes Total as the remaining credit of a draft", () => {
    const mapped = mapCreditNote(
      {
        Type: "ACCRECCREDIT",
        CreditNoteID: "cn-1",
        Status: "DRAFT",
        Total: "25",
        Allocations: [
          {
            Amount: "5",
            Invoice: { InvoiceID: "inv-1", InvoiceNumber: "INV-1" },
            Date: "2024-01-02",
          },
          { Amount: "7", IsDeleted: true },
        ],
      },
      ctx(),
    );
    expect(mapped.note).toMatchObject({
      remainingCredit: "25",
      status: "FORECAST",
      currency: "AUD",
    });
    expect(mapped.allocations).toEqual([
      {
        externalId: null,
        invoiceExternalId: "inv-1",
        invoiceNumber: "INV-1",
        amount: "5",
        date: "2024-01-02",
      },
    ]);
  });
});

describe("mapPayment", () => {
  it("links credit-note refunds, filed under Invoice with a CREDIT type, to the credit note", () => {
    const refund = mapPayment({
      PaymentID: "p-1",
      Date: "2024-01-01",
      Amount: "2",
      Invoice: { InvoiceID: "cn-1", Type: "ACCRECCREDIT" },
    });
    expect(refund).toMatchObject({ invoiceExternalId: null, creditNoteExternalId: "cn-1" });
    const paid = mapPayment({
      PaymentID: "p-2",
      Date: "2024-01-01",
      Amount: "2",
      Invoice: { InvoiceID: "inv-1", Type: "ACCREC" },
    });
    expect(paid).toMatchObject({
      invoiceExternalId: "inv-1",
      creditNoteExternalId: null,
      status: "AUTHORISED",
      isReconciled: false,
    });
  });
});

describe("mapContact and mapOrganisation", () => {
  it("defaults a contact's flags and status", () => {
    expect(mapContact({ ContactID: "c", Name: "N", EmailAddress: "" })).toMatchObject({
      isCustomer: false,
      isSupplier: false,
      contactStatus: "ACTIVE",
      email: null,
    });
  });

  it("maps the Windows timezone, keeps settings the ledger does not give, ignores the name", () => {
    expect(
      mapOrganisation({
        OrganisationID: "o",
        Name: "Ledger Name",
        Timezone: "NEWZEALANDSTANDARDTIME",
        BaseCurrency: "NZD",
      }),
    ).toEqual({ ledgerOrganisationId: "o", timezone: "Pacific/Auckland", baseCurrency: "NZD" });
    expect(mapOrganisation({ OrganisationID: "o", Timezone: "NOWHERETIME" }).timezone).toBe(
      "Australia/Sydney",
    );
    expect(mapOrganisation({ OrganisationID: "o" })).toEqual({ ledgerOrganisationId: "o" });
  });
});

describe("closingBalances and mapBankAccount", () => {
  const report = (closing: string, header = "Closing Balance"): XeroReport => ({
    Rows: [
      {
        RowType: "Header",
        Cells: [{ Value: "Bank Accounts" }, { Value: "Opening Balance" }, { Value: header }],
      },
      {
        RowType: "Section",
        Rows: [
          {
            RowType: "Row",
            Cells: [
              { Value: "Cheque", Attributes: [{ Id: "accountID", Value: "acc-1" }] },
              { Value: "1.00" },
              { Value: closing },
            ],
          },
          { RowType: "SummaryRow", Cells: [{ Value: "Total" }, { Value: "1" }, { Value: "2" }] },
        ],
      },
    ],
  });

  it("finds the Closing Balance column by its header and the account by its attribute", () => {
    expect(closingBalances(report("12,345.60"))).toEqual(new Map([["acc-1", "12345.6"]]));
    expect(closingBalances(report(""))).toEqual(new Map([["acc-1", "0"]]));
    expect(closingBalances(null)).toEqual(new Map());
  });

  it("names the row and account of a balance that is not a number", () => {
    expect(() => closingBalances(report("n/a"))).toThrow(LedgerFormatError);
    expect(() => closingBalances(report("n/a"))).toThrow(
      'BankSummary report: row "Cheque" (accountID acc-1): Closing Balance: expected a number within ±90071992547409.91 with at most 20 decimals, got "n/a"',
    );
  });

  it("mirrors the closing balance into both balances, RECONCILED, zero without a report row", () => {
    const now = new Date("2024-04-01T00:00:00Z");
    const balances = new Map([["acc-1", "-5.5"]]);
    const account = { AccountID: "acc-1", Name: "Visa", Type: "BANK", Status: "ARCHIVED" };
    expect(mapBankAccount(account, balances, "AUD", now)).toEqual({
      externalId: "acc-1",
      name: "Visa",
      currency: "AUD",
      reconciledBalance: "-5.5",
      statementBalance: "-5.5",
      balanceSource: "RECONCILED",
      balanceSyncedAt: now,
      isActive: false,
    });
    expect(
      mapBankAccount({ ...account, AccountID: "acc-2" }, balances, "AUD", now).reconciledBalance,
    ).toBe("0");
  });
});
