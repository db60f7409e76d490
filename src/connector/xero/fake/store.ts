import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/*
 * The contract fake's data: one in-memory ledger per tenant, in Xero's wire shapes (PascalCase
 * fields, MS-AJAX dates, money as JSON numbers). Tests change it between syncs (add, edit, pay,
 * void, archive); each change moves the record's UpdatedDateUTC as Xero does, so that
 * `If-Modified-Since` sees it.
 */

/** A Xero record as served: a plain JSON object. */
export type WireRecord = Record<string, unknown>;

/** The paged (or filterable) collections the fake serves, by envelope key. */
export const FAKE_COLLECTIONS = {
  Accounts: "AccountID",
  Contacts: "ContactID",
  Invoices: "InvoiceID",
  CreditNotes: "CreditNoteID",
  PurchaseOrders: "PurchaseOrderID",
  Payments: "PaymentID",
  BankTransactions: "BankTransactionID",
} as const;
export type FakeCollection = keyof typeof FAKE_COLLECTIONS;

interface StoredRecord {
  body: WireRecord;
  /** UpdatedDateUTC in ms: what If-Modified-Since compares. */
  updatedMs: number;
  /** Insertion order: the stable order pages are cut in. */
  seq: number;
}

export interface FakeTenant {
  tenantId: string;
  tenantName: string;
  organisation: WireRecord;
  collections: Record<FakeCollection, Map<string, StoredRecord>>;
  /** The BankSummary report (`Reports[0]`), closing balances kept current by payments. */
  bankSummary: WireRecord | null;
  /** Balance sheets, one per as-at date (`Reports[]` of the export file). */
  balanceSheets: WireRecord[];
}

/** `/Date(ms+0000)/`, as Xero writes dates and instants. */
export function msDate(ms: number): string {
  return `/Date(${ms}+0000)/`;
}

/** `YYYY-MM-DD` → Xero's calendar-date encoding (midnight UTC of that date). */
export function msDateOf(isoDate: string): string {
  return msDate(Date.parse(`${isoDate}T00:00:00Z`));
}

const MS_DATE = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/;

function parseUpdated(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = MS_DATE.exec(value);
  if (m) return Number(m[1]);
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

const EXPORT_FILES: Record<FakeCollection, string> = {
  Accounts: "Accounts.json",
  Contacts: "Contacts.json",
  Invoices: "Invoices.json",
  CreditNotes: "CreditNotes.json",
  PurchaseOrders: "PurchaseOrders.json",
  Payments: "Payments.json",
  BankTransactions: "BankTransactions.json",
};

async function readEnvelopeFile(folder: string, file: string, key: string): Promise<WireRecord[]> {
  let text: string;
  try {
    text = await readFile(join(folder, file), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  const body = JSON.parse(text) as Record<string, unknown>;
  const records = body[key];
  return Array.isArray(records) ? (records as WireRecord[]) : [];
}

/**
 * The fake's ledgers. `now` is the fake's clock (UpdatedDateUTC of changes); tests may pin it.
 */
export class FakeLedgerStore {
  readonly tenants = new Map<string, FakeTenant>();
  private seq = 0;

  constructor(readonly now: () => number = Date.now) {}

  /** An empty tenant with an organisation in `BaseCurrency`. */
  addTenant(input: {
    tenantId?: string;
    tenantName: string;
    baseCurrency?: string;
    timezone?: string;
  }): FakeTenant {
    const tenantId = input.tenantId ?? randomUUID();
    const tenant: FakeTenant = {
      tenantId,
      tenantName: input.tenantName,
      organisation: {
        OrganisationID: tenantId,
        Name: input.tenantName,
        LegalName: input.tenantName,
        BaseCurrency: input.baseCurrency ?? "AUD",
        CountryCode: "AU",
        Version: "AU",
        Timezone: input.timezone ?? "AUSEASTERNSTANDARDTIME",
        FinancialYearEndDay: 30,
        FinancialYearEndMonth: 6,
        OrganisationStatus: "ACTIVE",
        CreatedDateUTC: msDate(this.now()),
      },
      collections: {
        Accounts: new Map(),
        Contacts: new Map(),
        Invoices: new Map(),
        CreditNotes: new Map(),
        PurchaseOrders: new Map(),
        Payments: new Map(),
        BankTransactions: new Map(),
      },
      bankSummary: null,
      balanceSheets: [],
    };
    this.tenants.set(tenantId, tenant);
    return tenant;
  }

  /**
   * A tenant holding a ledger export folder (docs/ledger-export.md; what `cashrunway demo`
   * writes). Records keep the UpdatedDateUTC the files carry, or get `now`.
   */
  async loadTenantFromFolder(
    folder: string,
    input: { tenantId?: string; tenantName?: string } = {},
  ): Promise<FakeTenant> {
    const [org] = await readEnvelopeFile(folder, "Organisation.json", "Organisations");
    const name = input.tenantName ?? (typeof org?.Name === "string" ? org.Name : "Fake ledger");
    const tenant = this.addTenant({ tenantId: input.tenantId, tenantName: name });
    if (org) tenant.organisation = { ...org, OrganisationID: tenant.tenantId };
    for (const key of Object.keys(EXPORT_FILES) as FakeCollection[]) {
      for (const record of await readEnvelopeFile(folder, EXPORT_FILES[key], key)) {
        this.put(tenant, key, record, parseUpdated(record.UpdatedDateUTC));
      }
    }
    const [summary] = await readEnvelopeFile(folder, "Reports/BankSummary.json", "Reports");
    tenant.bankSummary = summary ?? null;
    tenant.balanceSheets = await readEnvelopeFile(folder, "Reports/BalanceSheet.json", "Reports");
    return tenant;
  }

  tenant(tenantId: string): FakeTenant {
    const t = this.tenants.get(tenantId);
    if (!t) throw new Error(`fake ledger: no tenant ${tenantId}`);
    return t;
  }

  /** Adds or replaces a record; its UpdatedDateUTC becomes `updatedMs` (default: now). */
  put(
    tenant: FakeTenant,
    collection: FakeCollection,
    record: WireRecord,
    updatedMs?: number,
  ): WireRecord {
    const idField = FAKE_COLLECTIONS[collection];
    const id = typeof record[idField] === "string" ? (record[idField] as string) : randomUUID();
    const ms = updatedMs ?? this.now();
    const body: WireRecord = { ...record, [idField]: id, UpdatedDateUTC: msDate(ms) };
    const map = tenant.collections[collection];
    const before = map.get(id);
    map.set(id, { body, updatedMs: ms, seq: before?.seq ?? this.seq++ });
    return body;
  }

  get(tenantId: string, collection: FakeCollection, id: string): WireRecord {
    const r = this.tenant(tenantId).collections[collection].get(id);
    if (!r) throw new Error(`fake ledger: no ${collection} ${id}`);
    return r.body;
  }

  /** Changes fields of a record, as an edit in Xero: UpdatedDateUTC moves. */
  edit(tenantId: string, collection: FakeCollection, id: string, fields: WireRecord): WireRecord {
    const before = this.get(tenantId, collection, id);
    return this.put(this.tenant(tenantId), collection, { ...before, ...fields });
  }

  /** Voids an invoice (Status VOIDED, nothing due). */
  voidInvoice(tenantId: string, invoiceId: string): WireRecord {
    return this.edit(tenantId, "Invoices", invoiceId, { Status: "VOIDED", AmountDue: 0 });
  }

  /** Archives a contact (ContactStatus ARCHIVED). */
  archiveContact(tenantId: string, contactId: string): WireRecord {
    return this.edit(tenantId, "Contacts", contactId, { ContactStatus: "ARCHIVED" });
  }

  /**
   * Pays an invoice in full into a bank account on `date` (YYYY-MM-DD): a Payment is created,
   * the invoice becomes PAID with FullyPaidOnDate, and the bank's closing balance moves.
   */
  payInvoice(
    tenantId: string,
    invoiceId: string,
    input: { accountId: string; date: string },
  ): WireRecord {
    const tenant = this.tenant(tenantId);
    const invoice = this.get(tenantId, "Invoices", invoiceId);
    const due = Number(invoice.AmountDue ?? invoice.Total ?? 0);
    const payment = this.put(tenant, "Payments", {
      PaymentID: randomUUID(),
      Invoice: {
        InvoiceID: invoiceId,
        InvoiceNumber: invoice.InvoiceNumber,
        Type: invoice.Type,
      },
      Account: { AccountID: input.accountId },
      Date: msDateOf(input.date),
      Amount: due,
      BankAmount: due,
      CurrencyRate: 1,
      IsReconciled: false,
      Status: "AUTHORISED",
      PaymentType: invoice.Type === "ACCPAY" ? "ACCPAYPAYMENT" : "ACCRECPAYMENT",
    });
    const embedded = Array.isArray(invoice.Payments) ? (invoice.Payments as WireRecord[]) : [];
    this.edit(tenantId, "Invoices", invoiceId, {
      Status: "PAID",
      AmountDue: 0,
      AmountPaid: Number(invoice.AmountPaid ?? 0) + due,
      FullyPaidOnDate: msDateOf(input.date),
      Payments: [...embedded, { PaymentID: payment.PaymentID, Date: payment.Date, Amount: due }],
    });
    this.moveBankBalance(tenant, input.accountId, invoice.Type === "ACCPAY" ? -due : due);
    return payment;
  }

  /** Adds `delta` to a bank account's Closing Balance cell in the BankSummary report. */
  private moveBankBalance(tenant: FakeTenant, accountId: string, delta: number): void {
    const visit = (rows: unknown): void => {
      if (!Array.isArray(rows)) return;
      for (const row of rows as WireRecord[]) {
        visit(row.Rows);
        const cells = row.Cells as WireRecord[] | undefined;
        const first = cells?.[0]?.Attributes as { Id: string; Value: string }[] | undefined;
        if (row.RowType !== "Row" || !cells || !first) continue;
        if (!first.some((a) => a.Id === "accountID" && a.Value === accountId)) continue;
        const closing = cells[cells.length - 1];
        if (closing) {
          const cents = Math.round(Number(closing.Value ?? 0) * 100) + Math.round(delta * 100);
          closing.Value = (cents / 100).toFixed(2);
        }
      }
    };
    visit(tenant.bankSummary?.Rows);
  }
}
