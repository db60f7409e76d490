import { createHash } from "node:crypto";
import { and, eq, ne, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type {
  LedgerSource,
  XeroAccount,
  XeroCreditNote,
  XeroInvoice,
  XeroPurchaseOrder,
} from "../../connector/ledger-source.ts";
import type { Tx } from "../../db/client.ts";
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
  organisations,
  payments,
  purchaseOrderLines,
  purchaseOrders,
} from "../../db/schema/index.ts";
import { type IdPrefix, newId } from "../../domain/ids.ts";
import { writeBalanceSheets } from "../account-balances/write-balance-sheets.ts";
import {
  type AccountRef,
  closingBalances,
  isBankAccount,
  type MappingContext,
  mapBankAccount,
  mapBankTransaction,
  mapContact,
  mapCreditNote,
  mapInvoice,
  mapLedgerAccount,
  mapOrganisation,
  mapPayment,
  mapPurchaseOrder,
} from "./map-ledger.ts";
import {
  type ColumnKey,
  deleteWhereIn,
  existingRows,
  insertRows,
  type UpsertSpec,
  upsertChanged,
} from "./write-projection.ts";

/*
 * Writes one ledger snapshot into an organisation's projection, inside the caller's transaction.
 * Collections are read page by page and written in batches. Flat tables are upserted with
 * "update only when a column differs"; documents with child rows (invoices, credit notes,
 * purchase orders) carry a digest of their mapped content, are skipped when it is unchanged, and
 * otherwise have their child rows replaced. Rows absent from the snapshot are removed.
 */

/** Records read from the ledger and projection rows written (inserted, changed or removed). */
export type SyncCounts = Record<string, { read: number; written: number }>;

/** The organisation's ledger settings as they are before the import. */
export interface OrganisationSettings {
  id: string;
  baseCurrency: string;
  timezone: string;
  financialYearEndDay: number;
  financialYearEndMonth: number;
  ledgerOrganisationId: string | null;
}

export interface ProjectionInput {
  org: OrganisationSettings;
  source: LedgerSource;
  now: Date;
  /** Filled in as collections are read and written, so a failure still reports progress. */
  counts: SyncCounts;
  /**
   * The source holds only records changed since the last sync (a live ledger's
   * If-Modified-Since read), not a snapshot: records are upserted and nothing absent is removed.
   * The chart of accounts and the reports are still read whole.
   */
  partial?: boolean;
}

function counter(counts: SyncCounts, name: string) {
  counts[name] ??= { read: 0, written: 0 };
  return counts[name];
}

/** A stable digest of a mapped document (key order is the mapper's; Dates become ISO). */
function digest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64url");
}

/** Throws when a collection repeats an id: the snapshot would be ambiguous. */
function markSeen(seen: Set<string>, collection: string, idField: string, id: string): void {
  if (seen.has(id)) throw new Error(`${collection}: ${idField} ${id} appears more than once`);
  seen.add(id);
}

/** Removes the rows of `existing` the snapshot did not contain; returns how many. */
async function removeAbsent(
  tx: Tx,
  table: PgTable,
  orgId: string,
  existing: ReadonlyMap<string, { id: string }>,
  seen: ReadonlySet<string>,
): Promise<number> {
  const gone: string[] = [];
  for (const [externalId, row] of existing) if (!seen.has(externalId)) gone.push(row.id);
  await deleteWhereIn(tx, table, orgId, "id", gone);
  return gone.length;
}

// ─── Column lists ────────────────────────────────────────────────────────────────────────────
// What each upsert writes. Service-owned columns (isSensitive, suppressedReason, probability)
// are absent, so an update never touches them.

const LEDGER_ACCOUNT_COLUMNS = [
  "code",
  "name",
  "type",
  "class",
  "status",
  "systemAccount",
  "reportingCode",
  "bankAccountType",
  "bankAccountNumber",
  "currency",
  "taxType",
  "updatedAt",
] as const satisfies readonly ColumnKey<typeof ledgerAccounts>[];

const BANK_ACCOUNT_COLUMNS = [
  "ledgerAccountId",
  "name",
  "currency",
  "reconciledBalance",
  "statementBalance",
  "balanceSource",
  "balanceSyncedAt",
  "isActive",
] as const satisfies readonly ColumnKey<typeof bankAccounts>[];

const CONTACT_COLUMNS = [
  "name",
  "firstName",
  "lastName",
  "email",
  "contactNumber",
  "accountNumber",
  "contactStatus",
  "isCustomer",
  "isSupplier",
  "defaultCurrency",
  "mergedToContactId",
  "ledgerUpdatedAt",
] as const satisfies readonly ColumnKey<typeof contacts>[];

const PAYMENT_COLUMNS = [
  "paymentType",
  "status",
  "invoiceExternalId",
  "creditNoteExternalId",
  "bankAccountExternalId",
  "date",
  "amount",
  "bankAmount",
  "currencyRate",
  "reference",
  "isReconciled",
] as const satisfies readonly ColumnKey<typeof payments>[];

const BANK_TRANSACTION_COLUMNS = [
  "type",
  "status",
  "bankAccountExternalId",
  "contactExternalId",
  "contactName",
  "date",
  "reference",
  "currency",
  "subTotal",
  "totalTax",
  "total",
  "isReconciled",
  "accountCode",
  "ledgerUpdatedAt",
] as const satisfies readonly ColumnKey<typeof bankTransactions>[];

const CASH_ITEM_COLUMNS = [
  "invoiceNumber",
  "reference",
  "contactExternalId",
  "contactName",
  "status",
  "ledgerStatus",
  "lineAmountTypes",
  "currency",
  "currencyRate",
  "subTotal",
  "totalTax",
  "amount",
  "amountDue",
  "amountPaid",
  "amountCredited",
  "issueDate",
  "dueDate",
  "expectedDate",
  "actualDate",
  "category",
  "ledgerUpdatedAt",
  "syncHash",
  "lastSyncedAt",
] as const satisfies readonly ColumnKey<typeof cashItems>[];

const CASH_ITEM_LINE_COLUMNS = [
  "id",
  "orgId",
  "cashItemId",
  "lineNumber",
  "externalId",
  "description",
  "quantity",
  "unitAmount",
  "itemCode",
  "accountCode",
  "accountExternalId",
  "taxType",
  "taxAmount",
  "lineAmount",
  "discountRate",
  "discountAmount",
] as const satisfies readonly ColumnKey<typeof cashItemLines>[];

const CREDIT_NOTE_COLUMNS = [
  "type",
  "creditNoteNumber",
  "reference",
  "contactExternalId",
  "contactName",
  "issueDate",
  "dueDate",
  "status",
  "ledgerStatus",
  "lineAmountTypes",
  "subTotal",
  "totalTax",
  "total",
  "remainingCredit",
  "currency",
  "currencyRate",
  "fullyPaidOnDate",
  "ledgerUpdatedAt",
  "syncHash",
  "lastSyncedAt",
] as const satisfies readonly ColumnKey<typeof creditNotes>[];

/** Credit-note and purchase-order lines share these columns. */
const DOCUMENT_LINE_COLUMNS = [
  "id",
  "orgId",
  "lineNumber",
  "externalId",
  "description",
  "quantity",
  "unitAmount",
  "itemCode",
  "accountCode",
  "taxType",
  "taxAmount",
  "lineAmount",
] as const;

const CREDIT_NOTE_ALLOCATION_COLUMNS = [
  "id",
  "orgId",
  "creditNoteId",
  "externalId",
  "invoiceExternalId",
  "invoiceNumber",
  "amount",
  "date",
] as const satisfies readonly ColumnKey<typeof creditNoteAllocations>[];

const PURCHASE_ORDER_COLUMNS = [
  "purchaseOrderNumber",
  "reference",
  "contactExternalId",
  "contactName",
  "status",
  "issueDate",
  "deliveryDate",
  "expectedArrivalDate",
  "lineAmountTypes",
  "subTotal",
  "totalTax",
  "total",
  "currency",
  "currencyRate",
  "ledgerUpdatedAt",
  "syncHash",
  "lastSyncedAt",
] as const satisfies readonly ColumnKey<typeof purchaseOrders>[];

/** A flat table keyed by (org_id, external_id): a row is updated only when a column differs. */
function flatSpec<T extends PgTable>(
  table: T,
  columns: readonly ColumnKey<T>[],
  stamps: readonly ColumnKey<T>[] = [],
): UpsertSpec<T> {
  return {
    table,
    insert: ["id", "orgId", "externalId", ...columns, ...stamps] as ColumnKey<T>[],
    conflict: ["orgId", "externalId"] as ColumnKey<T>[],
    compare: columns,
    update: [...columns, ...stamps],
  };
}

// ─── Documents with child rows ───────────────────────────────────────────────────────────────

type Existing = ReadonlyMap<string, { id: string; hash: string | null }>;

/** Rows of a child table (lines, allocations) made from a mapped document. */
interface ChildRows<M> {
  table: PgTable;
  /** The child's column holding its document's row id. */
  parentKey: string;
  columns: readonly string[];
  idPrefix: IdPrefix;
  rows(mapped: M): readonly object[];
}

/**
 * How one ledger collection of documents becomes projection rows: where it is read, how each
 * document maps, the table and columns it is written to, and its child rows. Every document
 * type is written by `writeDocuments` through one of these.
 */
interface DocumentType<T extends PgTable, D, M> {
  /** The collection and id field, for messages (`Invoices: InvoiceID … appears more than once`). */
  collection: string;
  idField: string;
  read(source: LedgerSource): AsyncIterable<D[]>;
  externalId(document: D): string;
  map(document: D, ctx: MappingContext): M;
  /** The document's own row, from its mapping (id, organisation and sync stamps are added). */
  row(mapped: M): object;
  table: T;
  columns: readonly ColumnKey<T>[];
  /** The table's unique key besides the id. */
  conflict: readonly ColumnKey<T>[];
  idPrefix: IdPrefix;
  /**
   * Subsets of the table with their own counts (invoices and bills share cash_items): `where`
   * selects a subset's existing rows, `of` says which subset a document is in.
   */
  subsets: readonly { count: string; where?: SQL }[];
  subsetOf(document: D): number;
  /** Child tables, replaced whole when their document changes (in this order). */
  children: readonly ChildRows<M>[];
}

/**
 * Writes a collection of documents. Each mapped document is digested (`syncHash`) and skipped
 * when the stored digest is the same, so an unchanged document keeps its id, child rows and
 * lastSyncedAt; a changed one is upserted and its child rows replaced. Documents absent from the
 * snapshot are removed (their child rows go by ON DELETE CASCADE).
 */
async function writeDocuments<T extends PgTable, D, M>(
  tx: Tx,
  input: ProjectionInput,
  ctx: MappingContext,
  type: DocumentType<T, D, M>,
): Promise<void> {
  const { org, now, counts } = input;
  const orgId = org.id;
  const subsets: {
    count: { read: number; written: number };
    seen: Set<string>;
    existing: Existing;
  }[] = [];
  for (const subset of type.subsets) {
    subsets.push({
      count: counter(counts, subset.count),
      seen: new Set<string>(),
      existing: await existingRows(tx, type.table, orgId, { withHash: true, where: subset.where }),
    });
  }
  const seen = new Set<string>();
  const spec: UpsertSpec<T> = {
    table: type.table,
    insert: ["id", ...type.conflict, ...type.columns] as ColumnKey<T>[],
    conflict: type.conflict,
    compare: ["syncHash"] as ColumnKey<T>[],
    update: type.columns,
  };
  for await (const page of type.read(input.source)) {
    const changed: {
      row: Record<string, unknown> & { externalId: string };
      mapped: M;
      replaces: boolean;
    }[] = [];
    for (const document of page) {
      const externalId = type.externalId(document);
      markSeen(seen, type.collection, type.idField, externalId);
      const subset = subsets[type.subsetOf(document)];
      if (!subset) throw new Error(`${type.collection}: no subset for ${externalId}`);
      subset.seen.add(externalId);
      subset.count.read += 1;
      const mapped = type.map(document, ctx);
      const hash = digest(mapped);
      const before = subset.existing.get(externalId);
      if (before?.hash === hash) continue;
      subset.count.written += 1;
      const id = before?.id ?? newId(type.idPrefix);
      const row = { ...type.row(mapped), id, orgId, externalId, syncHash: hash, lastSyncedAt: now };
      changed.push({ row, mapped, replaces: before !== undefined });
    }
    // External ids are unique within the table (for cash items, across invoices and bills).
    const written = await upsertChanged(
      tx,
      spec,
      changed.map((c) => c.row as T["$inferInsert"]),
    );
    const byExternalId = new Map(changed.map((c) => [c.row.externalId, c]));
    const documents: { id: string; mapped: M }[] = [];
    const replaced: string[] = [];
    for (const w of written) {
      const c = byExternalId.get(w.externalId);
      if (!c) continue;
      documents.push({ id: w.id, mapped: c.mapped });
      if (c.replaces) replaced.push(w.id);
    }
    for (const child of type.children) {
      await deleteWhereIn(tx, child.table, orgId, child.parentKey, replaced);
    }
    for (const child of type.children) {
      const rows = documents.flatMap(({ id, mapped }) =>
        child.rows(mapped).map((r) => ({
          ...r,
          id: newId(child.idPrefix),
          orgId,
          [child.parentKey]: id,
        })),
      );
      await insertRows(tx, child.table, [...child.columns] as ColumnKey<PgTable>[], rows);
    }
  }
  if (input.partial) return;
  for (const subset of subsets) {
    subset.count.written += await removeAbsent(tx, type.table, orgId, subset.existing, subset.seen);
  }
}

const INVOICE_SUBSETS = ["ACCREC", "ACCPAY"] as const;

/** Invoices (ACCREC) and bills (ACCPAY): cash items with their lines. */
const invoices: DocumentType<typeof cashItems, XeroInvoice, ReturnType<typeof mapInvoice>> = {
  collection: "Invoices",
  idField: "InvoiceID",
  read: (source) => source.invoices(),
  externalId: (invoice) => invoice.InvoiceID,
  map: mapInvoice,
  row: (mapped) => mapped.item,
  table: cashItems,
  columns: CASH_ITEM_COLUMNS,
  conflict: ["orgId", "source", "externalId"],
  idPrefix: "ci",
  subsets: [
    { count: "invoices", where: sql`"source" = 'LEDGER_INVOICE'` },
    { count: "bills", where: sql`"source" = 'LEDGER_BILL'` },
  ],
  subsetOf: (invoice) => INVOICE_SUBSETS.indexOf(invoice.Type),
  children: [
    {
      table: cashItemLines,
      parentKey: "cashItemId",
      columns: CASH_ITEM_LINE_COLUMNS,
      idPrefix: "cil",
      rows: (mapped) => mapped.lines,
    },
  ],
};

/** Credit notes (both types) with their lines and allocations. */
const creditNoteType: DocumentType<
  typeof creditNotes,
  XeroCreditNote,
  ReturnType<typeof mapCreditNote>
> = {
  collection: "CreditNotes",
  idField: "CreditNoteID",
  read: (source) => source.creditNotes(),
  externalId: (note) => note.CreditNoteID,
  map: mapCreditNote,
  row: (mapped) => mapped.note,
  table: creditNotes,
  columns: CREDIT_NOTE_COLUMNS,
  conflict: ["orgId", "externalId"],
  idPrefix: "cn",
  subsets: [{ count: "creditNotes" }],
  subsetOf: () => 0,
  children: [
    {
      table: creditNoteLines,
      parentKey: "creditNoteId",
      columns: [...DOCUMENT_LINE_COLUMNS, "creditNoteId"],
      idPrefix: "cnl",
      rows: (mapped) => mapped.lines,
    },
    {
      table: creditNoteAllocations,
      parentKey: "creditNoteId",
      columns: CREDIT_NOTE_ALLOCATION_COLUMNS,
      idPrefix: "cna",
      rows: (mapped) => mapped.allocations,
    },
  ],
};

/**
 * Purchase orders with their lines. suppressedReason belongs to the bill matcher: it is not
 * among the columns, so it is inserted as null and never overwritten here.
 */
const purchaseOrderType: DocumentType<
  typeof purchaseOrders,
  XeroPurchaseOrder,
  ReturnType<typeof mapPurchaseOrder>
> = {
  collection: "PurchaseOrders",
  idField: "PurchaseOrderID",
  read: (source) => source.purchaseOrders(),
  externalId: (order) => order.PurchaseOrderID,
  map: mapPurchaseOrder,
  row: (mapped) => mapped.order,
  table: purchaseOrders,
  columns: PURCHASE_ORDER_COLUMNS,
  conflict: ["orgId", "externalId"],
  idPrefix: "po",
  subsets: [{ count: "purchaseOrders" }],
  subsetOf: () => 0,
  children: [
    {
      table: purchaseOrderLines,
      parentKey: "purchaseOrderId",
      columns: [...DOCUMENT_LINE_COLUMNS, "purchaseOrderId"],
      idPrefix: "pol",
      rows: (mapped) => mapped.lines,
    },
  ],
};

// ─── The whole snapshot ──────────────────────────────────────────────────────────────────────

/**
 * Writes the snapshot. Order matters: accounts before bank accounts (foreign key) and before
 * documents (account lookups); contacts before documents (contact names); payments before
 * invoices (a PAID invoice without FullyPaidOnDate takes its last payment's date).
 */
export async function projectLedger(tx: Tx, input: ProjectionInput): Promise<void> {
  const { org, source, now, counts } = input;
  const orgId = org.id;
  const partial = input.partial === true;

  // Organisation settings (decision: our name stays; see mapOrganisation).
  const patch = mapOrganisation(await source.organisation());
  const orgCount = counter(counts, "organisation");
  orgCount.read = 1;
  const settings = {
    ledgerOrganisationId: patch.ledgerOrganisationId,
    baseCurrency: patch.baseCurrency ?? org.baseCurrency,
    timezone: patch.timezone ?? org.timezone,
    financialYearEndDay: patch.financialYearEndDay ?? org.financialYearEndDay,
    financialYearEndMonth: patch.financialYearEndMonth ?? org.financialYearEndMonth,
  };
  const before = {
    ledgerOrganisationId: org.ledgerOrganisationId,
    baseCurrency: org.baseCurrency,
    timezone: org.timezone,
    financialYearEndDay: org.financialYearEndDay,
    financialYearEndMonth: org.financialYearEndMonth,
  };
  if (JSON.stringify(settings) !== JSON.stringify(before)) {
    await tx.update(organisations).set(settings).where(eq(organisations.id, orgId));
    orgCount.written = 1;
  }
  const baseCurrency = settings.baseCurrency;

  // Chart of accounts (small: read whole), then bank accounts, which reference it.
  const accounts: XeroAccount[] = [];
  const accountSeen = new Set<string>();
  for await (const page of source.accounts()) {
    for (const a of page) {
      markSeen(accountSeen, "Accounts", "AccountID", a.AccountID);
      accounts.push(a);
    }
  }
  const accountCount = counter(counts, "accounts");
  accountCount.read = accounts.length;
  const existingAccounts = await existingRows(tx, ledgerAccounts, orgId);
  const accountRows = accounts.map((a) => ({
    id: existingAccounts.get(a.AccountID)?.id ?? newId("acc"),
    orgId,
    ...mapLedgerAccount(a),
  }));
  accountCount.written = (
    await upsertChanged(tx, flatSpec(ledgerAccounts, LEDGER_ACCOUNT_COLUMNS), accountRows)
  ).length;
  const accountRowIds = new Map(accountRows.map((r) => [r.externalId, r.id]));

  const balances = closingBalances(await source.bankSummary());
  const banks = accounts.filter(isBankAccount);
  const bankCount = counter(counts, "bankAccounts");
  bankCount.read = banks.length;
  const existingBanks = await existingRows(tx, bankAccounts, orgId);
  const bankRows = banks.map((a) => ({
    id: existingBanks.get(a.AccountID)?.id ?? newId("bank"),
    orgId,
    ledgerAccountId: accountRowIds.get(a.AccountID) ?? "",
    ...mapBankAccount(a, balances, baseCurrency, now),
  }));
  bankCount.written = (
    await upsertChanged(tx, flatSpec(bankAccounts, BANK_ACCOUNT_COLUMNS), bankRows)
  ).length;
  const bankSeen = new Set(banks.map((b) => b.AccountID));
  bankCount.written += await removeAbsent(tx, bankAccounts, orgId, existingBanks, bankSeen);
  accountCount.written += await removeAbsent(
    tx,
    ledgerAccounts,
    orgId,
    existingAccounts,
    accountSeen,
  );

  const accountsByCode = new Map<string, AccountRef>();
  const accountsById = new Map<string, AccountRef>();
  for (const a of accounts) {
    const ref = { externalId: a.AccountID, code: a.Code || null, name: a.Name, type: a.Type };
    accountsById.set(a.AccountID, ref);
    if (ref.code && !accountsByCode.has(ref.code)) accountsByCode.set(ref.code, ref);
  }

  // Contacts: lastSyncedAt moves only with a change to the contact's data.
  const contactCount = counter(counts, "contacts");
  const existingContacts = await existingRows(tx, contacts, orgId);
  const contactSeen = new Set<string>();
  // A partial read names only the changed contacts; documents may refer to the others.
  const contactNames = partial ? await storedContactNames(tx, orgId) : new Map<string, string>();
  const contactSpec = flatSpec(contacts, CONTACT_COLUMNS, ["lastSyncedAt"]);
  for await (const page of source.contacts()) {
    contactCount.read += page.length;
    const rows = page.map((c) => {
      markSeen(contactSeen, "Contacts", "ContactID", c.ContactID);
      contactNames.set(c.ContactID, c.Name);
      const id = existingContacts.get(c.ContactID)?.id ?? newId("ctc");
      return { id, orgId, ...mapContact(c), lastSyncedAt: now };
    });
    contactCount.written += (await upsertChanged(tx, contactSpec, rows)).length;
  }
  if (!partial) {
    contactCount.written += await removeAbsent(tx, contacts, orgId, existingContacts, contactSeen);
  }

  const paymentCount = counter(counts, "payments");
  const existingPayments = await existingRows(tx, payments, orgId);
  const paymentSeen = new Set<string>();
  const lastPaymentDates = new Map<string, string>();
  const paymentSpec = flatSpec(payments, PAYMENT_COLUMNS);
  for await (const page of source.payments()) {
    paymentCount.read += page.length;
    const rows = page.map((p) => {
      markSeen(paymentSeen, "Payments", "PaymentID", p.PaymentID);
      const row = mapPayment(p);
      if (row.invoiceExternalId && row.status !== "DELETED") {
        const last = lastPaymentDates.get(row.invoiceExternalId);
        if (!last || row.date > last) lastPaymentDates.set(row.invoiceExternalId, row.date);
      }
      return { id: existingPayments.get(p.PaymentID)?.id ?? newId("pay"), orgId, ...row };
    });
    paymentCount.written += (await upsertChanged(tx, paymentSpec, rows)).length;
  }
  if (partial) {
    // The payments read are only the changed ones: take every invoice's last from the table.
    for (const [invoiceId, date] of await storedLastPaymentDates(tx, orgId)) {
      lastPaymentDates.set(invoiceId, date);
    }
  } else {
    paymentCount.written += await removeAbsent(tx, payments, orgId, existingPayments, paymentSeen);
  }

  const ctx: MappingContext = {
    baseCurrency,
    accountsByCode,
    accountsById,
    contactNames,
    lastPaymentDates,
  };
  await writeDocuments(tx, input, ctx, invoices);
  await writeDocuments(tx, input, ctx, creditNoteType);
  await writeDocuments(tx, input, ctx, purchaseOrderType);

  const btCount = counter(counts, "bankTransactions");
  const existingBts = await existingRows(tx, bankTransactions, orgId);
  const btSeen = new Set<string>();
  const btSpec = flatSpec(bankTransactions, BANK_TRANSACTION_COLUMNS);
  for await (const page of source.bankTransactions()) {
    btCount.read += page.length;
    const rows = page.map((t) => {
      markSeen(btSeen, "BankTransactions", "BankTransactionID", t.BankTransactionID);
      const id = existingBts.get(t.BankTransactionID)?.id ?? newId("btx");
      return { id, orgId, ...mapBankTransaction(t, ctx) };
    });
    btCount.written += (await upsertChanged(tx, btSpec, rows)).length;
  }
  if (!partial) {
    btCount.written += await removeAbsent(tx, bankTransactions, orgId, existingBts, btSeen);
  }

  // Balance sheets (Reports/BalanceSheet.json): account balances as at each report date.
  const balanceSheets = await writeBalanceSheets(tx, orgId, source);
  if (balanceSheets.read + balanceSheets.written > 0) counts.balanceSheets = balanceSheets;
}

async function storedContactNames(tx: Tx, orgId: string): Promise<Map<string, string>> {
  const rows = await tx
    .select({ externalId: contacts.externalId, name: contacts.name })
    .from(contacts)
    .where(eq(contacts.orgId, orgId));
  return new Map(rows.map((r) => [r.externalId, r.name]));
}

/** Per invoice, the date of its last payment that is not DELETED, as the table holds them. */
async function storedLastPaymentDates(tx: Tx, orgId: string): Promise<Map<string, string>> {
  const rows = await tx
    .select({
      invoiceId: payments.invoiceExternalId,
      date: sql<string>`max(${payments.date})::text`,
    })
    .from(payments)
    .where(and(eq(payments.orgId, orgId), ne(payments.status, "DELETED")))
    .groupBy(payments.invoiceExternalId);
  const out = new Map<string, string>();
  for (const r of rows) if (r.invoiceId) out.set(r.invoiceId, r.date);
  return out;
}
