import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import { cashItems, contactBaselines, contacts, creditNotes } from "../schema/index.ts";
import { RECEIVABLE_CREDIT } from "./credit-notes.ts";
import { descendingAfter, type KeysetAfter } from "./issued-documents.ts";

/*
 * Reads behind GET /api/agent/contacts and /contacts/{id}. Every query is filtered by org_id.
 *
 * Revenue and spend are the contact's ACTUAL money: the amount paid on its PAID sales invoices
 * (revenue) or PAID bills (spend), in the organisation's base currency. A foreign-currency
 * document is converted at its own CurrencyRate (the ledger quotes foreign units per base unit),
 * rounded to the cent; one without a usable rate counts 0. Amount paid excludes credit notes
 * applied to the document, which moved no money.
 */

export type ContactType = "customer" | "supplier" | "both";
export type ContactSort = "recent_desc" | "revenue_desc" | "spend_desc";

export interface ContactFilter {
  orgId: string;
  /** `both` = every contact; `customer` / `supplier` by the ledger's flags. */
  type: ContactType;
}

function contactWhere(f: ContactFilter): SQL | undefined {
  return and(
    eq(contacts.orgId, f.orgId),
    f.type === "customer" ? eq(contacts.isCustomer, true) : undefined,
    f.type === "supplier" ? eq(contacts.isSupplier, true) : undefined,
  );
}

/** A document's paid amount in the base currency (see the file comment). */
function baseInflow(baseCurrency: string): SQL<string> {
  const paid = sql`coalesce(${cashItems.amountPaid}, ${cashItems.amount})`;
  return sql<string>`case when ${cashItems.currency} = ${baseCurrency} then ${paid}
    when ${cashItems.currencyRate} > 0 then round(${paid} / ${cashItems.currencyRate}, 2)
    else 0 end`;
}

/** A contact of a page, before redaction. */
export interface ContactRow {
  id: string;
  externalId: string;
  name: string;
  isCustomer: boolean;
  isSupplier: boolean;
  isSensitive: boolean;
  lastSyncedAt: Date;
  /** The sort value as text: an ISO instant (µs) for recent_desc, a decimal otherwise. */
  sortKey: string;
}

const LAST_SYNCED_TEXT = sql<string>`to_char(${contacts.lastSyncedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Below any LTV a ledger can produce (amounts are at most ±9·10^13 each). */
const NULLS_LAST = "(-1e30)::numeric";

/** The columns of a contact as the list and the drill read it. */
const CONTACT_COLUMNS = {
  id: contacts.id,
  externalId: contacts.externalId,
  name: contacts.name,
  isCustomer: contacts.isCustomer,
  isSupplier: contacts.isSupplier,
  isSensitive: contacts.isSensitive,
  lastSyncedAt: contacts.lastSyncedAt,
};

/**
 * A page of contacts strictly after `after`:
 * - `recent_desc`: lastSyncedAt DESC, id DESC;
 * - `revenue_desc` / `spend_desc` (the same key, as the spec says): the cumulative LTV of the
 *   contact baselines DESC, nulls (non-customers, no baseline yet) last, then id DESC, over the
 *   whole set in the database, so that every page is in that order and pages follow each other.
 */
export async function listContactPage(
  db: DbOrTx,
  filter: ContactFilter,
  opts: { sort: ContactSort; after: KeysetAfter | undefined; limit: number },
): Promise<ContactRow[]> {
  const base = CONTACT_COLUMNS;
  if (opts.sort === "recent_desc") {
    return db
      .select({ ...base, sortKey: LAST_SYNCED_TEXT })
      .from(contacts)
      .where(
        and(
          contactWhere(filter),
          descendingAfter(contacts.lastSyncedAt, contacts.id, opts.after, "timestamptz"),
        ),
      )
      .orderBy(desc(contacts.lastSyncedAt), desc(contacts.id))
      .limit(opts.limit);
  }
  // Both sorts are on the one key the spec names: the cumulative LTV of the contact baselines
  // (ContactSummary.ltv: customers only), nulls last. Nulls sort as NULLS_LAST so that the
  // cursor's (value, id) keyset stays one comparison.
  const ltv = sql<string>`coalesce(case when ${contactBaselines.isCustomer}
    then ${contactBaselines.ltvCumulative} end, ${sql.raw(NULLS_LAST)})`;
  return db
    .select({ ...base, sortKey: sql<string>`${ltv}::text` })
    .from(contacts)
    .leftJoin(
      contactBaselines,
      and(
        eq(contactBaselines.orgId, contacts.orgId),
        eq(contactBaselines.contactExternalId, contacts.externalId),
      ),
    )
    .where(and(contactWhere(filter), descendingAfter(ltv, contacts.id, opts.after, "numeric")))
    .orderBy(desc(ltv), desc(contacts.id))
    .limit(opts.limit);
}

export async function countContacts(db: DbOrTx, filter: ContactFilter): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(contacts)
    .where(contactWhere(filter));
  return Number(row?.n ?? 0);
}

/** Contacts by type: customer only, supplier only, both flags, neither. */
export interface ContactTypeCounts {
  customer: number;
  supplier: number;
  both: number;
  neither: number;
}

/** The by-type counts of the matched contacts, in SQL (one pass). */
export async function countContactsByType(
  db: DbOrTx,
  filter: ContactFilter,
): Promise<ContactTypeCounts> {
  const c = contacts.isCustomer;
  const s = contacts.isSupplier;
  const [row] = await db
    .select({
      customer: sql<number>`(count(*) filter (where ${c} and not ${s}))::int`,
      supplier: sql<number>`(count(*) filter (where ${s} and not ${c}))::int`,
      both: sql<number>`(count(*) filter (where ${c} and ${s}))::int`,
      neither: sql<number>`(count(*) filter (where not ${c} and not ${s}))::int`,
    })
    .from(contacts)
    .where(contactWhere(filter));
  return {
    customer: Number(row?.customer ?? 0),
    supplier: Number(row?.supplier ?? 0),
    both: Number(row?.both ?? 0),
    neither: Number(row?.neither ?? 0),
  };
}

/**
 * The ledger ids of the organisation's contacts flagged sensitive (a handful, read through the
 * partial index `contacts_org_sensitive_idx`). Lists check their rows against this set rather
 * than joining every row to its contact.
 */
export async function listSensitiveContactIds(db: DbOrTx, orgId: string): Promise<string[]> {
  const rows = await db
    .select({ externalId: contacts.externalId })
    .from(contacts)
    .where(and(eq(contacts.orgId, orgId), eq(contacts.isSensitive, true)));
  return rows.map((r) => r.externalId);
}

/** One contact by the ledger's ContactID. */
export async function findContact(db: DbOrTx, orgId: string, externalId: string) {
  const [row] = await db
    .select(CONTACT_COLUMNS)
    .from(contacts)
    .where(and(eq(contacts.orgId, orgId), eq(contacts.externalId, externalId)))
    .limit(1);
  return row;
}

/**
 * The contact's money figures, in SQL: available credit (remainingCredit of its AUTHORISED
 * receivable credit notes in the base currency; foreign-currency credits excluded), and revenue
 * (see the file comment) all time and over the 365 days ending `today` (actual dates
 * `today − 364` to `today`). All-time revenue counts every PAID invoice dated up to today or
 * undated.
 */
export async function contactMoney(
  db: DbOrTx,
  input: { orgId: string; contactId: string; baseCurrency: string; today: string },
): Promise<{ availableCredit: string; revenueAllTime: string; revenueTrailing12m: string }> {
  const inflow = baseInflow(input.baseCurrency);
  const [revenue] = await db
    .select({
      allTime: sql<string>`coalesce(sum(${inflow}) filter (where ${cashItems.actualDate} is null
        or ${cashItems.actualDate} <= ${input.today}::date), 0)::text`,
      trailing: sql<string>`coalesce(sum(${inflow}) filter (where ${cashItems.actualDate}
        > ${input.today}::date - 365 and ${cashItems.actualDate} <= ${input.today}::date), 0)::text`,
    })
    .from(cashItems)
    .where(
      and(
        eq(cashItems.orgId, input.orgId),
        eq(cashItems.contactExternalId, input.contactId),
        eq(cashItems.source, "LEDGER_INVOICE"),
        eq(cashItems.ledgerStatus, "PAID"),
      ),
    );
  const [credit] = await db
    .select({ available: sql<string>`coalesce(sum(${creditNotes.remainingCredit}), 0)::text` })
    .from(creditNotes)
    .where(
      and(
        eq(creditNotes.orgId, input.orgId),
        eq(creditNotes.contactExternalId, input.contactId),
        eq(creditNotes.type, RECEIVABLE_CREDIT),
        eq(creditNotes.ledgerStatus, "AUTHORISED"),
        eq(creditNotes.currency, input.baseCurrency),
      ),
    );
  return {
    availableCredit: credit?.available ?? "0",
    revenueAllTime: revenue?.allTime ?? "0",
    revenueTrailing12m: revenue?.trailing ?? "0",
  };
}

const documentColumns = {
  id: cashItems.id,
  externalId: cashItems.externalId,
  invoiceNumber: cashItems.invoiceNumber,
  issueDate: cashItems.issueDate,
  dueDate: cashItems.dueDate,
  actualDate: cashItems.actualDate,
  amount: cashItems.amount,
  amountDue: cashItems.amountDue,
  currency: cashItems.currency,
  status: cashItems.status,
  ledgerStatus: cashItems.ledgerStatus,
  category: cashItems.category,
};

export type ContactDocumentRow = Awaited<ReturnType<typeof lastDocument>>;

/**
 * The contact's latest approved (AUTHORISED or PAID) invoice or bill, by document date (issue
 * date, else due date) then id; drafts, voided and deleted documents do not count.
 */
export async function lastDocument(
  db: DbOrTx,
  input: { orgId: string; contactId: string; source: "LEDGER_INVOICE" | "LEDGER_BILL" },
) {
  const [row] = await db
    .select(documentColumns)
    .from(cashItems)
    .where(
      and(
        eq(cashItems.orgId, input.orgId),
        eq(cashItems.contactExternalId, input.contactId),
        eq(cashItems.source, input.source),
        inArray(cashItems.ledgerStatus, ["AUTHORISED", "PAID"]),
      ),
    )
    .orderBy(sql`${cashItems.documentDate} desc nulls last`, desc(cashItems.id))
    .limit(1);
  return row;
}

/** The contact's most recent PAID sales invoices, by paid date (undated last) then id. */
export async function recentPaidInvoices(
  db: DbOrTx,
  input: { orgId: string; contactId: string; limit: number },
) {
  return db
    .select(documentColumns)
    .from(cashItems)
    .where(
      and(
        eq(cashItems.orgId, input.orgId),
        eq(cashItems.contactExternalId, input.contactId),
        eq(cashItems.source, "LEDGER_INVOICE"),
        eq(cashItems.ledgerStatus, "PAID"),
      ),
    )
    .orderBy(sql`${cashItems.actualDate} desc nulls last`, desc(cashItems.id))
    .limit(input.limit);
}
