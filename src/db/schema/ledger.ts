import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { organisations } from "./tenancy.ts";

const orgId = () =>
  text("org_id")
    .notNull()
    .references(() => organisations.id);
const money = (name: string) => numeric(name);

/** Where an account sits in the profit and loss (gap facts §2.4). */
export const PNL_POSITIONS = ["REVENUE", "COGS", "OPEX", "OFF_PNL"] as const;
export type PnlPosition = (typeof PNL_POSITIONS)[number];
const day = (name: string) => date(name, { mode: "string" });
const instant = (name: string) => timestamp(name, { withTimezone: true });

export const LEDGER_PROVIDERS = ["xero", "export_folder", "demo"] as const;
export const CONNECTION_STATUSES = [
  "active",
  "service_issue",
  "reconnect_required",
  "disconnected",
] as const;

/** How an organisation's ledger reaches us. One active connection per organisation. */
export const ledgerConnections = pgTable(
  "ledger_connections",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    provider: text("provider", { enum: LEDGER_PROVIDERS }).notNull(),
    /** Xero tenant id, or the folder path for an export folder. */
    sourceRef: text("source_ref"),
    status: text("status", { enum: CONNECTION_STATUSES }).notNull().default("active"),
    lastSuccessfulSyncAt: instant("last_successful_sync_at"),
    lastError: text("last_error"),
    createdAt: instant("created_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("ledger_connections_org_key").on(t.orgId)],
);

export const SYNC_OUTCOMES = ["running", "succeeded", "failed"] as const;

export const syncRuns = pgTable(
  "sync_runs",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    connectionId: text("connection_id").references(() => ledgerConnections.id),
    source: text("source").notNull(),
    startedAt: instant("started_at").notNull(),
    finishedAt: instant("finished_at"),
    outcome: text("outcome", { enum: SYNC_OUTCOMES }).notNull(),
    /** Rows read and written per collection, e.g. `{ "invoices": { "read": 10, "written": 10 } }`. */
    counts: jsonb("counts"),
    error: text("error"),
    /** Calls made to the ledger's API (live syncs only; 429s and retries included). */
    ledgerCalls: integer("ledger_calls"),
    /**
     * While a live sync runs: what it has read so far (`{ "resource": "invoices", "records":
     * { "invoices": 12000 }, "ledgerCalls": 14 }`), committed as it goes so that every instance
     * can show it.
     */
    progress: jsonb("progress"),
  },
  (t) => [index("sync_runs_org_started_idx").on(t.orgId, t.startedAt)],
);

/** The chart of accounts. `isSensitive` belongs to the service and survives re-imports. */
export const ledgerAccounts = pgTable(
  "ledger_accounts",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    externalId: text("external_id").notNull(),
    code: text("code"),
    name: text("name").notNull(),
    /** Ledger account type: BANK, CURRENT, DIRECTCOSTS, EXPENSE, REVENUE, SALES, … */
    type: text("type").notNull(),
    /** ASSET, EQUITY, EXPENSE, LIABILITY, REVENUE. */
    class: text("class"),
    status: text("status").notNull().default("ACTIVE"),
    systemAccount: text("system_account"),
    reportingCode: text("reporting_code"),
    bankAccountType: text("bank_account_type"),
    bankAccountNumber: text("bank_account_number"),
    currency: text("currency"),
    taxType: text("tax_type"),
    isSensitive: boolean("is_sensitive").notNull().default(false),
    /**
     * The owner's choice on Settings → Account categories: counted in burn and revenue or not.
     * null = the default from the account class (src/domain/categories).
     */
    includeInBurn: boolean("include_in_burn"),
    /** The owner's P&L position (Revenue, COGS, OpEx, Off-P&L); null = the default from the type. */
    pnlPosition: text("pnl_position", { enum: PNL_POSITIONS }),
    updatedAt: instant("updated_at"),
  },
  (t) => [
    uniqueIndex("ledger_accounts_org_ext_key").on(t.orgId, t.externalId),
    index("ledger_accounts_org_code_idx").on(t.orgId, t.code),
  ],
);

export const BALANCE_SOURCES = ["STATEMENT", "RECONCILED"] as const;

/** A ledger account of type BANK with its balances. Sensitivity is its ledger account's flag. */
export const bankAccounts = pgTable(
  "bank_accounts",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    ledgerAccountId: text("ledger_account_id")
      .notNull()
      .references(() => ledgerAccounts.id),
    externalId: text("external_id").notNull(),
    name: text("name").notNull(),
    currency: text("currency").notNull(),
    /** Closing balance of the ledger's BankSummary report ("Balance in Xero"). */
    reconciledBalance: money("reconciled_balance").notNull().default("0"),
    /** Bank statement balance; the standard ledger API has none, so it mirrors the reconciled one. */
    statementBalance: money("statement_balance").notNull().default("0"),
    balanceSource: text("balance_source", { enum: BALANCE_SOURCES })
      .notNull()
      .default("RECONCILED"),
    balanceSyncedAt: instant("balance_synced_at"),
    isActive: boolean("is_active").notNull().default(true),
  },
  (t) => [
    uniqueIndex("bank_accounts_org_ext_key").on(t.orgId, t.externalId),
    index("bank_accounts_org_name_idx").on(t.orgId, t.name, t.id),
  ],
);

export const contacts = pgTable(
  "contacts",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    /** The ledger's ContactID: the id the API shows. */
    externalId: text("external_id").notNull(),
    name: text("name").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    email: text("email"),
    contactNumber: text("contact_number"),
    accountNumber: text("account_number"),
    contactStatus: text("contact_status").notNull().default("ACTIVE"),
    isCustomer: boolean("is_customer").notNull().default(false),
    isSupplier: boolean("is_supplier").notNull().default(false),
    /** Service-owned; survives re-imports. */
    isSensitive: boolean("is_sensitive").notNull().default(false),
    defaultCurrency: text("default_currency"),
    mergedToContactId: text("merged_to_contact_id"),
    ledgerUpdatedAt: instant("ledger_updated_at"),
    /** When the last sync wrote a change to this contact. */
    lastSyncedAt: instant("last_synced_at").notNull(),
  },
  (t) => [
    uniqueIndex("contacts_org_ext_key").on(t.orgId, t.externalId),
    index("contacts_org_synced_idx").on(t.orgId, t.lastSyncedAt, t.id),
    // The few sensitive contacts of an organisation, which every list reads to gate its rows.
    index("contacts_org_sensitive_idx").on(t.orgId, t.externalId).where(sql`${t.isSensitive}`),
  ],
);

export const CASH_ITEM_SOURCES = [
  "LEDGER_INVOICE",
  "LEDGER_BILL",
  "RECURRING",
  "MANUAL",
  "PIPELINE",
  "PREDICTED",
] as const;
export type CashItemSource = (typeof CASH_ITEM_SOURCES)[number];
export const CASH_ITEM_STATUSES = ["FORECAST", "ACTUAL", "CANCELLED"] as const;
export type CashItemStatus = (typeof CASH_ITEM_STATUSES)[number];
export const LEDGER_STATUSES = [
  "DRAFT",
  "SUBMITTED",
  "AUTHORISED",
  "PAID",
  "VOIDED",
  "DELETED",
] as const;
export type LedgerStatus = (typeof LEDGER_STATUSES)[number];

/**
 * The record behind invoices and bills (and later recurring, manual, pipeline and predicted
 * items). `amount` is the gross document total; `amountDue` is what is still to move.
 */
export const cashItems = pgTable(
  "cash_items",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    source: text("source", { enum: CASH_ITEM_SOURCES }).notNull(),
    /** The ledger's InvoiceID; null for service-made items. */
    externalId: text("external_id"),
    invoiceNumber: text("invoice_number"),
    reference: text("reference"),
    contactExternalId: text("contact_external_id"),
    contactName: text("contact_name"),
    status: text("status", { enum: CASH_ITEM_STATUSES }).notNull(),
    ledgerStatus: text("ledger_status", { enum: LEDGER_STATUSES }),
    lineAmountTypes: text("line_amount_types"),
    currency: text("currency").notNull(),
    currencyRate: numeric("currency_rate"),
    subTotal: money("sub_total"),
    totalTax: money("total_tax"),
    amount: money("amount").notNull(),
    amountDue: money("amount_due"),
    amountPaid: money("amount_paid"),
    amountCredited: money("amount_credited"),
    issueDate: day("issue_date"),
    dueDate: day("due_date"),
    /** ExpectedPaymentDate / PlannedPaymentDate, else DueDate, else issue date. */
    expectedDate: day("expected_date").notNull(),
    /** FullyPaidOnDate, or the last payment date. */
    actualDate: day("actual_date"),
    /** The date the API filters on: issue date, falling back to due date. */
    documentDate: day("document_date").generatedAlwaysAs(sql`coalesce(issue_date, due_date)`),
    category: text("category"),
    /** Weight in [0,1] for PIPELINE and PREDICTED items; null = certain. */
    probability: numeric("probability"),
    ledgerUpdatedAt: instant("ledger_updated_at"),
    lastSyncedAt: instant("last_synced_at").notNull(),
    /** Digest of the mapped ledger document and its lines; the importer skips unchanged ones. */
    syncHash: text("sync_hash"),
  },
  (t) => [
    uniqueIndex("cash_items_org_source_ext_key").on(t.orgId, t.source, t.externalId),
    index("cash_items_org_source_date_idx").on(t.orgId, t.source, t.documentDate, t.id),
    // Lists filtered by one ledger status walk this in order (keyset pages, counts, totals).
    index("cash_items_org_source_status_date_idx").on(
      t.orgId,
      t.source,
      t.ledgerStatus,
      t.documentDate,
      t.id,
    ),
    index("cash_items_org_contact_idx").on(t.orgId, t.contactExternalId, t.source),
    index("cash_items_org_status_expected_idx").on(t.orgId, t.status, t.expectedDate),
  ],
);

/** Invoice and bill lines. `lineAmount` is ex-tax after discount; `discountRate` a fraction. */
export const cashItemLines = pgTable(
  "cash_item_lines",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    cashItemId: text("cash_item_id")
      .notNull()
      .references(() => cashItems.id, { onDelete: "cascade" }),
    lineNumber: integer("line_number").notNull(),
    externalId: text("external_id"),
    description: text("description"),
    quantity: numeric("quantity"),
    unitAmount: numeric("unit_amount"),
    itemCode: text("item_code"),
    accountCode: text("account_code"),
    accountExternalId: text("account_external_id"),
    taxType: text("tax_type"),
    taxAmount: money("tax_amount").notNull().default("0"),
    lineAmount: money("line_amount").notNull(),
    discountRate: numeric("discount_rate"),
    discountAmount: money("discount_amount"),
  },
  (t) => [
    index("cash_item_lines_org_item_idx").on(t.orgId, t.cashItemId, t.lineNumber),
    // Serves the cascade when a cash item is deleted (the delete does not name the organisation).
    index("cash_item_lines_item_idx").on(t.cashItemId),
  ],
);

export const payments = pgTable(
  "payments",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    externalId: text("external_id").notNull(),
    paymentType: text("payment_type"),
    status: text("status").notNull(),
    invoiceExternalId: text("invoice_external_id"),
    creditNoteExternalId: text("credit_note_external_id"),
    bankAccountExternalId: text("bank_account_external_id"),
    date: day("date").notNull(),
    /** In the document's currency. */
    amount: money("amount").notNull(),
    /** In the bank account's currency. */
    bankAmount: money("bank_amount"),
    currencyRate: numeric("currency_rate"),
    reference: text("reference"),
    isReconciled: boolean("is_reconciled").notNull().default(false),
  },
  (t) => [
    uniqueIndex("payments_org_ext_key").on(t.orgId, t.externalId),
    index("payments_org_invoice_idx").on(t.orgId, t.invoiceExternalId),
    index("payments_org_date_idx").on(t.orgId, t.date),
  ],
);

/** Spend and receive money, transfers: the bank lines that are not invoice payments. */
export const bankTransactions = pgTable(
  "bank_transactions",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    externalId: text("external_id").notNull(),
    type: text("type").notNull(),
    status: text("status").notNull(),
    bankAccountExternalId: text("bank_account_external_id").notNull(),
    contactExternalId: text("contact_external_id"),
    contactName: text("contact_name"),
    date: day("date").notNull(),
    reference: text("reference"),
    currency: text("currency").notNull(),
    subTotal: money("sub_total"),
    totalTax: money("total_tax"),
    total: money("total").notNull(),
    isReconciled: boolean("is_reconciled").notNull().default(false),
    /** Account code of the first line, for categorising recurring spend. */
    accountCode: text("account_code"),
    ledgerUpdatedAt: instant("ledger_updated_at"),
  },
  (t) => [
    uniqueIndex("bank_transactions_org_ext_key").on(t.orgId, t.externalId),
    index("bank_transactions_org_date_idx").on(t.orgId, t.date),
  ],
);

export const creditNotes = pgTable(
  "credit_notes",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    externalId: text("external_id").notNull(),
    /** ACCRECCREDIT (receivable; what the API lists) or ACCPAYCREDIT. */
    type: text("type").notNull(),
    creditNoteNumber: text("credit_note_number"),
    reference: text("reference"),
    contactExternalId: text("contact_external_id"),
    contactName: text("contact_name"),
    issueDate: day("issue_date"),
    dueDate: day("due_date"),
    status: text("status", { enum: CASH_ITEM_STATUSES }).notNull(),
    ledgerStatus: text("ledger_status", { enum: LEDGER_STATUSES }).notNull(),
    lineAmountTypes: text("line_amount_types"),
    subTotal: money("sub_total"),
    totalTax: money("total_tax"),
    total: money("total").notNull(),
    remainingCredit: money("remaining_credit").notNull(),
    currency: text("currency").notNull(),
    currencyRate: numeric("currency_rate"),
    fullyPaidOnDate: day("fully_paid_on_date"),
    ledgerUpdatedAt: instant("ledger_updated_at"),
    lastSyncedAt: instant("last_synced_at").notNull(),
    /** Digest of the mapped ledger document and its lines; the importer skips unchanged ones. */
    syncHash: text("sync_hash"),
  },
  (t) => [
    uniqueIndex("credit_notes_org_ext_key").on(t.orgId, t.externalId),
    index("credit_notes_org_type_date_idx").on(t.orgId, t.type, t.issueDate, t.id),
    index("credit_notes_org_contact_idx").on(t.orgId, t.contactExternalId),
    index("credit_notes_org_number_idx").on(t.orgId, t.creditNoteNumber),
  ],
);

export const creditNoteAllocations = pgTable(
  "credit_note_allocations",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    creditNoteId: text("credit_note_id")
      .notNull()
      .references(() => creditNotes.id, { onDelete: "cascade" }),
    externalId: text("external_id"),
    invoiceExternalId: text("invoice_external_id"),
    invoiceNumber: text("invoice_number"),
    amount: money("amount").notNull(),
    date: day("date"),
  },
  (t) => [
    index("credit_note_allocations_org_cn_idx").on(t.orgId, t.creditNoteId),
    index("credit_note_allocations_cn_idx").on(t.creditNoteId), // the cascade from credit_notes
  ],
);

export const creditNoteLines = pgTable(
  "credit_note_lines",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    creditNoteId: text("credit_note_id")
      .notNull()
      .references(() => creditNotes.id, { onDelete: "cascade" }),
    lineNumber: integer("line_number").notNull(),
    externalId: text("external_id"),
    description: text("description"),
    quantity: numeric("quantity"),
    unitAmount: numeric("unit_amount"),
    itemCode: text("item_code"),
    accountCode: text("account_code"),
    taxType: text("tax_type"),
    taxAmount: money("tax_amount"),
    lineAmount: money("line_amount"),
  },
  (t) => [
    index("credit_note_lines_org_cn_idx").on(t.orgId, t.creditNoteId, t.lineNumber),
    index("credit_note_lines_cn_idx").on(t.creditNoteId), // the cascade from credit_notes
  ],
);

export const PURCHASE_ORDER_STATUSES = [
  "DRAFT",
  "SUBMITTED",
  "AUTHORISED",
  "BILLED",
  "DELETED",
] as const;
export const SUPPRESSED_REASONS = ["REFERENCE", "CONTACT_AMOUNT"] as const;

export const purchaseOrders = pgTable(
  "purchase_orders",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    externalId: text("external_id").notNull(),
    purchaseOrderNumber: text("purchase_order_number"),
    reference: text("reference"),
    contactExternalId: text("contact_external_id"),
    contactName: text("contact_name"),
    status: text("status", { enum: PURCHASE_ORDER_STATUSES }).notNull(),
    issueDate: day("issue_date"),
    deliveryDate: day("delivery_date"),
    expectedArrivalDate: day("expected_arrival_date"),
    lineAmountTypes: text("line_amount_types"),
    subTotal: money("sub_total"),
    totalTax: money("total_tax"),
    /** Gross, tax-inclusive. */
    total: money("total").notNull(),
    currency: text("currency").notNull(),
    currencyRate: numeric("currency_rate"),
    /** Computed at sync: matched to a supplier bill, so the forecast leaves it out. */
    suppressedReason: text("suppressed_reason", { enum: SUPPRESSED_REASONS }),
    ledgerUpdatedAt: instant("ledger_updated_at"),
    lastSyncedAt: instant("last_synced_at").notNull(),
    /** Digest of the mapped ledger document and its lines; the importer skips unchanged ones. */
    syncHash: text("sync_hash"),
  },
  (t) => [
    uniqueIndex("purchase_orders_org_ext_key").on(t.orgId, t.externalId),
    index("purchase_orders_org_date_idx").on(t.orgId, t.issueDate, t.id),
    index("purchase_orders_org_contact_idx").on(t.orgId, t.contactExternalId),
  ],
);

export const purchaseOrderLines = pgTable(
  "purchase_order_lines",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    purchaseOrderId: text("purchase_order_id")
      .notNull()
      .references(() => purchaseOrders.id, { onDelete: "cascade" }),
    lineNumber: integer("line_number").notNull(),
    externalId: text("external_id"),
    description: text("description"),
    quantity: numeric("quantity"),
    unitAmount: numeric("unit_amount"),
    itemCode: text("item_code"),
    accountCode: text("account_code"),
    taxType: text("tax_type"),
    taxAmount: money("tax_amount"),
    lineAmount: money("line_amount"),
  },
  (t) => [
    index("purchase_order_lines_org_po_idx").on(t.orgId, t.purchaseOrderId, t.lineNumber),
    index("purchase_order_lines_po_idx").on(t.purchaseOrderId), // the cascade from purchase_orders
  ],
);

/**
 * One row per organisation whose `epoch` grows with every statement that writes its listed
 * documents or contacts (`cash_items`, `credit_notes`, `purchase_orders`, `contacts`:
 * drizzle/0014_org_data_epoch_triggers.sql) or the other tables the forecast reads (`payments`,
 * `credit_note_allocations`, `purchase_order_lines`, `bank_transactions`, `ledger_accounts`:
 * drizzle/0029_forecast_data_epoch.sql); the triggers bump it in the writing transaction, whoever
 * writes. A list's count read at one epoch is the count of every snapshot at that epoch, so the
 * list verbs keep counts per epoch (src/services/lists/paging.ts), and the forecast keeps its
 * books per epoch (docs/adr/0008-forecast-books-kept-per-data-epoch.md). No row yet = epoch 0.
 */
export const orgDataEpochs = pgTable("org_data_epochs", {
  orgId: text("org_id").primaryKey(),
  epoch: bigint("epoch", { mode: "number" }).notNull().default(0),
});
