import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { LedgerSource, XeroAccount } from "../../connector/ledger-source.ts";
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

/** A document table: a row is rewritten only when its digest (`syncHash`) differs. */
function documentSpec<T extends PgTable>(
  table: T,
  columns: readonly ColumnKey<T>[],
  conflict: readonly ColumnKey<T>[],
): UpsertSpec<T> {
  return {
    table,
    insert: ["id", ...conflict, ...columns] as ColumnKey<T>[],
    conflict,
    compare: ["syncHash"] as ColumnKey<T>[],
    update: columns,
  };
}

// ─── Documents with child rows ───────────────────────────────────────────────────────────────

type Existing = ReadonlyMap<string, { id: string; hash: string | null }>;

/** A document of one page: its row (with digest) and what its children are made from. */
interface PendingDocument<T extends PgTable, M> {
  row: T["$inferInsert"] & { id: string; externalId: string };
  mapped: M;
  /** True when the row exists already, so its old child rows must go. */
  replaces: boolean;
}

/**
 * Builds the page's changed documents: each mapped document is digested and skipped when the
 * stored digest is the same (so its id, children and lastSyncedAt stay as they are).
 */
function pendingDocument<T extends PgTable, M>(
  existing: Existing,
  externalId: string,
  mapped: M,
  row: (id: string, hash: string) => T["$inferInsert"],
  prefix: IdPrefix,
): PendingDocument<T, M> | undefined {
  const hash = digest(mapped);
  const before = existing.get(externalId);
  if (before?.hash === hash) return undefined;
  const id = before?.id ?? newId(prefix);
  return { row: { ...row(id, hash), id, externalId }, mapped, replaces: before !== undefined };
}

/**
 * Upserts a page of changed documents and deletes the old child rows of those that existed;
 * returns the written documents with their row ids, for the caller to insert the new children.
 */
async function upsertDocuments<T extends PgTable, M>(
  tx: Tx,
  orgId: string,
  spec: UpsertSpec<T>,
  pending: readonly PendingDocument<T, M>[],
  children: readonly { table: PgTable; parentKey: string }[],
): Promise<{ id: string; mapped: M }[]> {
  const written = await upsertChanged(
    tx,
    spec,
    pending.map((p) => p.row),
  );
  const byExternalId = new Map(pending.map((p) => [p.row.externalId, p]));
  const out: { id: string; mapped: M }[] = [];
  const replaced: string[] = [];
  for (const w of written) {
    const p = byExternalId.get(w.externalId);
    if (!p) continue;
    out.push({ id: w.id, mapped: p.mapped });
    if (p.replaces) replaced.push(w.id);
  }
  for (const child of children) {
    await deleteWhereIn(tx, child.table, orgId, child.parentKey, replaced);
  }
  return out;
}

async function writeInvoices(tx: Tx, input: ProjectionInput, ctx: MappingContext): Promise<void> {
  const { org, now, counts } = input;
  const orgId = org.id;
  const kinds = {
    ACCREC: { count: counter(counts, "invoices"), seen: new Set<string>() },
    ACCPAY: { count: counter(counts, "bills"), seen: new Set<string>() },
  };
  const existing = {
    ACCREC: await existingRows(tx, cashItems, orgId, {
      withHash: true,
      where: sql`"source" = 'LEDGER_INVOICE'`,
    }),
    ACCPAY: await existingRows(tx, cashItems, orgId, {
      withHash: true,
      where: sql`"source" = 'LEDGER_BILL'`,
    }),
  };
  const seen = new Set<string>();
  const spec = documentSpec(cashItems, CASH_ITEM_COLUMNS, ["orgId", "source", "externalId"]);
  for await (const page of input.source.invoices()) {
    const pending: PendingDocument<typeof cashItems, ReturnType<typeof mapInvoice>>[] = [];
    for (const invoice of page) {
      markSeen(seen, "Invoices", "InvoiceID", invoice.InvoiceID);
      const kind = kinds[invoice.Type];
      kind.seen.add(invoice.InvoiceID);
      kind.count.read += 1;
      const mapped = mapInvoice(invoice, ctx);
      const p = pendingDocument<typeof cashItems, typeof mapped>(
        existing[invoice.Type],
        invoice.InvoiceID,
        mapped,
        (id, hash) => ({ ...mapped.item, id, orgId, syncHash: hash, lastSyncedAt: now }),
        "ci",
      );
      if (!p) continue;
      kind.count.written += 1;
      pending.push(p);
    }
    // InvoiceIDs are unique across invoices and bills, so the external id finds the document.
    const written = await upsertDocuments(tx, orgId, spec, pending, [
      { table: cashItemLines, parentKey: "cashItemId" },
    ]);
    const lines = written.flatMap(({ id, mapped }) =>
      mapped.lines.map((l) => ({ ...l, id: newId("cil"), orgId, cashItemId: id })),
    );
    await insertRows(tx, cashItemLines, CASH_ITEM_LINE_COLUMNS, lines);
  }
  // Lines go with their cash item (ON DELETE CASCADE).
  for (const type of ["ACCREC", "ACCPAY"] as const) {
    const kind = kinds[type];
    kind.count.written += await removeAbsent(tx, cashItems, orgId, existing[type], kind.seen);
  }
}

async function writeCreditNotes(
  tx: Tx,
  input: ProjectionInput,
  ctx: MappingContext,
): Promise<void> {
  const { org, now, counts } = input;
  const orgId = org.id;
  const count = counter(counts, "creditNotes");
  const existing = await existingRows(tx, creditNotes, orgId, { withHash: true });
  const seen = new Set<string>();
  const spec = documentSpec(creditNotes, CREDIT_NOTE_COLUMNS, ["orgId", "externalId"]);
  for await (const page of input.source.creditNotes()) {
    const pending: PendingDocument<typeof creditNotes, ReturnType<typeof mapCreditNote>>[] = [];
    for (const note of page) {
      markSeen(seen, "CreditNotes", "CreditNoteID", note.CreditNoteID);
      count.read += 1;
      const mapped = mapCreditNote(note, ctx);
      const p = pendingDocument<typeof creditNotes, typeof mapped>(
        existing,
        note.CreditNoteID,
        mapped,
        (id, hash) => ({ ...mapped.note, id, orgId, syncHash: hash, lastSyncedAt: now }),
        "cn",
      );
      if (!p) continue;
      count.written += 1;
      pending.push(p);
    }
    const written = await upsertDocuments(tx, orgId, spec, pending, [
      { table: creditNoteLines, parentKey: "creditNoteId" },
      { table: creditNoteAllocations, parentKey: "creditNoteId" },
    ]);
    const lines = written.flatMap(({ id, mapped }) =>
      mapped.lines.map((l) => ({ ...l, id: newId("cnl"), orgId, creditNoteId: id })),
    );
    const allocations = written.flatMap(({ id, mapped }) =>
      mapped.allocations.map((a) => ({ ...a, id: newId("cna"), orgId, creditNoteId: id })),
    );
    await insertRows(tx, creditNoteLines, [...DOCUMENT_LINE_COLUMNS, "creditNoteId"], lines);
    await insertRows(tx, creditNoteAllocations, CREDIT_NOTE_ALLOCATION_COLUMNS, allocations);
  }
  count.written += await removeAbsent(tx, creditNotes, orgId, existing, seen);
}

async function writePurchaseOrders(
  tx: Tx,
  input: ProjectionInput,
  ctx: MappingContext,
): Promise<void> {
  const { org, now, counts } = input;
  const orgId = org.id;
  const count = counter(counts, "purchaseOrders");
  const existing = await existingRows(tx, purchaseOrders, orgId, { withHash: true });
  const seen = new Set<string>();
  // suppressedReason belongs to the bill matcher: inserted as null, never overwritten here.
  const spec = documentSpec(purchaseOrders, PURCHASE_ORDER_COLUMNS, ["orgId", "externalId"]);
  for await (const page of input.source.purchaseOrders()) {
    const pending: PendingDocument<typeof purchaseOrders, ReturnType<typeof mapPurchaseOrder>>[] =
      [];
    for (const order of page) {
      markSeen(seen, "PurchaseOrders", "PurchaseOrderID", order.PurchaseOrderID);
      count.read += 1;
      const mapped = mapPurchaseOrder(order, ctx);
      const p = pendingDocument<typeof purchaseOrders, typeof mapped>(
        existing,
        order.PurchaseOrderID,
        mapped,
        (id, hash) => ({ ...mapped.order, id, orgId, syncHash: hash, lastSyncedAt: now }),
        "po",
      );
      if (!p) continue;
      count.written += 1;
      pending.push(p);
    }
    const written = await upsertDocuments(tx, orgId, spec, pending, [
      { table: purchaseOrderLines, parentKey: "purchaseOrderId" },
    ]);
    const lines = written.flatMap(({ id, mapped }) =>
      mapped.lines.map((l) => ({ ...l, id: newId("pol"), orgId, purchaseOrderId: id })),
    );
    await insertRows(tx, purchaseOrderLines, [...DOCUMENT_LINE_COLUMNS, "purchaseOrderId"], lines);
  }
  count.written += await removeAbsent(tx, purchaseOrders, orgId, existing, seen);
}

// ─── The whole snapshot ──────────────────────────────────────────────────────────────────────

/**
 * Writes the snapshot. Order matters: accounts before bank accounts (foreign key) and before
 * documents (account lookups); contacts before documents (contact names); payments before
 * invoices (a PAID invoice without FullyPaidOnDate takes its last payment's date).
 */
export async function projectLedger(tx: Tx, input: ProjectionInput): Promise<void> {
  const { org, source, now, counts } = input;
  const orgId = org.id;

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
  const contactNames = new Map<string, string>();
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
  contactCount.written += await removeAbsent(tx, contacts, orgId, existingContacts, contactSeen);

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
  paymentCount.written += await removeAbsent(tx, payments, orgId, existingPayments, paymentSeen);

  const ctx: MappingContext = {
    baseCurrency,
    accountsByCode,
    accountsById,
    contactNames,
    lastPaymentDates,
  };
  await writeInvoices(tx, input, ctx);
  await writeCreditNotes(tx, input, ctx);
  await writePurchaseOrders(tx, input, ctx);

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
  btCount.written += await removeAbsent(tx, bankTransactions, orgId, existingBts, btSeen);

  // Balance sheets (Reports/BalanceSheet.json): account balances as at each report date.
  const balanceSheets = await writeBalanceSheets(tx, orgId, source);
  if (balanceSheets.read + balanceSheets.written > 0) counts.balanceSheets = balanceSheets;
}
