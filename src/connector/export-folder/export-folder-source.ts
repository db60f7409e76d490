import { resolve } from "node:path";
import type { z } from "zod";
import { LedgerFormatError } from "../errors.ts";
import type {
  LedgerSource,
  XeroAccount,
  XeroBankTransaction,
  XeroContact,
  XeroCreditNote,
  XeroInvoice,
  XeroOrganisation,
  XeroPayment,
  XeroPurchaseOrder,
  XeroReport,
} from "../ledger-source.ts";
import { type CollectionFile, readEnvelope, validateRecords } from "./read-collection.ts";
import {
  AccountSchema,
  BankTransactionSchema,
  ContactSchema,
  CreditNoteSchema,
  InvoiceSchema,
  OrganisationSchema,
  PaymentSchema,
  PurchaseOrderSchema,
  ReportSchema,
} from "./schemas.ts";

/** The files of a ledger export folder; docs/ledger-export.md describes them. */
export const EXPORT_FILES = {
  organisation: {
    file: "Organisation.json",
    key: "Organisations",
    idField: "OrganisationID",
    required: true,
  },
  accounts: { file: "Accounts.json", key: "Accounts", idField: "AccountID", required: true },
  contacts: { file: "Contacts.json", key: "Contacts", idField: "ContactID", required: true },
  invoices: { file: "Invoices.json", key: "Invoices", idField: "InvoiceID", required: true },
  creditNotes: {
    file: "CreditNotes.json",
    key: "CreditNotes",
    idField: "CreditNoteID",
    required: false,
  },
  purchaseOrders: {
    file: "PurchaseOrders.json",
    key: "PurchaseOrders",
    idField: "PurchaseOrderID",
    required: false,
  },
  payments: { file: "Payments.json", key: "Payments", idField: "PaymentID", required: false },
  bankTransactions: {
    file: "BankTransactions.json",
    key: "BankTransactions",
    idField: "BankTransactionID",
    required: false,
  },
  bankSummary: { file: "Reports/BankSummary.json", key: "Reports", required: false },
  balanceSheets: { file: "Reports/BalanceSheet.json", key: "Reports", required: false },
} as const satisfies Record<string, CollectionFile>;

/** Records per yielded page, as the ledger API's largest page. */
export const EXPORT_PAGE_SIZE = 1000;

/**
 * A LedgerSource over a ledger export folder: one JSON file per collection, each in the envelope
 * the ledger's API returns (`{"Invoices":[…]}`). Files are read when their collection is asked
 * for, so a malformed record surfaces in the middle of an import, as an API page would.
 */
export function createExportFolderSource(folder: string): LedgerSource {
  const dir = resolve(folder);

  async function* collection<S extends z.ZodType>(
    spec: CollectionFile,
    schema: S,
  ): AsyncGenerator<z.output<S>[]> {
    const records = await readEnvelope(dir, spec);
    if (!records) return;
    yield* validateRecords(spec, records, schema, EXPORT_PAGE_SIZE);
  }

  return {
    provider: "export_folder",
    sourceRef: dir,

    async organisation(): Promise<XeroOrganisation> {
      const spec = EXPORT_FILES.organisation;
      const records = (await readEnvelope(dir, spec)) ?? [];
      if (records.length === 0) {
        throw new LedgerFormatError({ file: spec.file }, `"${spec.key}" is empty`);
      }
      // GET /Organisation answers with exactly one; extra entries are ignored.
      for (const page of validateRecords(spec, records.slice(0, 1), OrganisationSchema, 1)) {
        const first = page[0];
        if (first) return first;
      }
      throw new LedgerFormatError({ file: spec.file }, `"${spec.key}" is empty`);
    },

    accounts: (): AsyncIterable<XeroAccount[]> => collection(EXPORT_FILES.accounts, AccountSchema),
    contacts: (): AsyncIterable<XeroContact[]> => collection(EXPORT_FILES.contacts, ContactSchema),
    invoices: (): AsyncIterable<XeroInvoice[]> => collection(EXPORT_FILES.invoices, InvoiceSchema),
    creditNotes: (): AsyncIterable<XeroCreditNote[]> =>
      collection(EXPORT_FILES.creditNotes, CreditNoteSchema),
    purchaseOrders: (): AsyncIterable<XeroPurchaseOrder[]> =>
      collection(EXPORT_FILES.purchaseOrders, PurchaseOrderSchema),
    payments: (): AsyncIterable<XeroPayment[]> => collection(EXPORT_FILES.payments, PaymentSchema),
    bankTransactions: (): AsyncIterable<XeroBankTransaction[]> =>
      collection(EXPORT_FILES.bankTransactions, BankTransactionSchema),

    async bankSummary(): Promise<XeroReport | null> {
      const spec = EXPORT_FILES.bankSummary;
      const records = await readEnvelope(dir, spec);
      if (!records || records.length === 0) return null;
      // The file holds the report as GET /Reports/BankSummary returns it: Reports[0].
      for (const page of validateRecords(spec, records.slice(0, 1), ReportSchema, 1)) {
        const report = page[0];
        if (report) return report;
      }
      return null;
    },

    async balanceSheets(): Promise<XeroReport[]> {
      // Every report of the file: one per `date` the balance sheet was asked for.
      const spec = EXPORT_FILES.balanceSheets;
      const records = await readEnvelope(dir, spec);
      if (!records) return [];
      return [...validateRecords(spec, records, ReportSchema, EXPORT_PAGE_SIZE)].flat();
    },
  };
}
