import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import {
  type BookCustomer,
  type BookDocument,
  type BookManualItem,
  type BookPurchaseOrder,
  type Books,
  HISTORY_DAYS,
} from "../../domain/forecasting/books.ts";
import { addDays } from "../../domain/forecasting/dates.ts";
import type { RecurringHistoryEntry } from "../../domain/forecasting/types.ts";
import { money } from "../../domain/money.ts";
import { computeStartingCash } from "../cash-position/starting-cash.ts";
import { accountsExcludedFromBurn } from "../categories/categories.ts";

/** The organisation fields the forecast needs. */
export interface ForecastOrg {
  id: string;
  baseCurrency: string;
  timezone: string;
}

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * The local date of a timestamp column, computed by PostgreSQL (`updated_on` text or null): the
 * loader reads one per document, and formatting 100,000 instants in JavaScript (Intl) took
 * about a second. PostgreSQL's time zone rules gave the same dates as `localDate` on every
 * instant checked (docs/benchmarks.md, stop 12).
 */
const localDayOf = (column: SQL, tz: string) => sql`(${column} AT TIME ZONE ${tz})::date::text`;

/**
 * The chart of accounts as `code → service id` (the first account of a code: how an item's
 * category code becomes an account) and infos, in the chart's order (by code).
 */
export async function loadAccounts(db: DbOrTx, orgId: string) {
  const list = rows<{ id: string; code: string | null; name: string }>(
    await db.execute(sql`
      SELECT id, code, name FROM ledger_accounts WHERE org_id = ${orgId}
      ORDER BY code COLLATE "C" NULLS LAST, id COLLATE "C"`),
  );
  const byCode = new Map<string, string>();
  for (const a of list) if (a.code && !byCode.has(a.code)) byCode.set(a.code, a.id);
  return { byCode, infos: list.map((a) => ({ id: a.id, name: a.name })) };
}

/**
 * Documents in (nearly) the order `booksAsOf` puts them in (books.ts, `byLedger`: issue date,
 * due date, type, contact name, total, paid date, expected date, id), so that its sort finds
 * them sorted: a third of its CPU on the bench organisation (docs/benchmarks.md, stop 13). The
 * order the books come out in does not depend on it, only the time.
 */
const LEDGER_ORDER = sql`issue_date NULLS FIRST, due_date NULLS FIRST, source,
  COALESCE(contact_name, '') COLLATE "C", amount, actual_date NULLS FIRST, expected_date,
  id COLLATE "C"`;

/** Case- and space-insensitive reference text, as the bill matcher compares it. */
const norm = (text: string | null) => {
  const t = text?.trim().toUpperCase() ?? "";
  return t === "" ? null : t;
};

/** A document as the loader reads it (the rows `Books.documents` are made from). */
type DocumentRow = Pick<
  BookDocument,
  | "id"
  | "contactId"
  | "contactName"
  | "issueDate"
  | "dueDate"
  | "expectedDate"
  | "total"
  | "amountDue"
  | "currency"
  | "currencyRate"
  | "paidDate"
  | "updatedOn"
> & {
  externalId: string | null;
  source: string;
  status: string | null;
  number: string | null;
  category: string | null;
  /** The row's version (`xmin`): see `documentColumns`. */
  version: string;
};

/** A manual or pipeline item as read. */
type ManualRow = Pick<
  BookManualItem,
  | "id"
  | "amount"
  | "currency"
  | "currencyRate"
  | "expectedDate"
  | "dueDate"
  | "issueDate"
  | "contactId"
  | "probability"
  | "enteredOn"
> & {
  source: "MANUAL" | "PIPELINE";
  category: string | null;
};

/** A spend or receive money line of an included bank account, as read. */
interface BankRow {
  type: string;
  contactId: string | null;
  contactName: string | null;
  category: string | null;
  date: string;
  amount: string;
  currency: string;
}

/** Payments or credit allocations of documents, by the document's external id. */
type DatedAmounts = Map<string, { date: string; amount: string }[]>;

/**
 * What `readBookRows` read for a cutoff: the rows the books are built from (`booksFromRows`),
 * for that cutoff or any later one.
 */
export interface BookRows {
  cutoff: string | null;
  accounts: { byCode: Map<string, string>; infos: { id: string; name: string }[] };
  documents: DocumentRow[];
  orders: PurchaseOrderRow[];
  manual: ManualRow[];
  bank: BankRow[];
  customers: BookCustomer[];
  excludedFromBurn: Set<string>;
  /** Payments of the documents `paymentsRead` takes (all of them when `cutoff` is null). */
  paid: DatedAmounts;
  /** Credit-note allocations of the same documents. */
  credited: DatedAmounts;
  /** The bills each billed purchase order can be matched to, by order id (`candidateBills`). */
  orderBills: Map<string, CandidateBills>;
  /** Each row's document (same order) in the books of `cutoff` (`withDocuments`). */
  made: BookDocument[];
}

/**
 * Is this document in the books read for `cutoff`? Open now, undated, issued within the history
 * window, or changed after the cutoff: the SQL filter of `readBookRows`, so that rows read for an
 * earlier cutoff give, filtered by it, the rows a read for `cutoff` gives.
 */
function inBooks(d: DocumentRow, cutoff: string | null, since: string | null): boolean {
  if (cutoff === null || since === null) return true;
  return (
    d.status === "AUTHORISED" ||
    d.status === "SUBMITTED" ||
    d.issueDate === null ||
    d.issueDate >= since ||
    (d.updatedOn !== null && d.updatedOn > cutoff)
  );
}

/** `list` grouped by `doc`, each group in the order read. */
function byDocument(list: readonly { doc: string; date: string; amount: string }[]): DatedAmounts {
  const out: DatedAmounts = new Map();
  for (const x of list) {
    const group = out.get(x.doc);
    if (group) group.push({ date: x.date, amount: x.amount });
    else out.set(x.doc, [{ date: x.date, amount: x.amount }]);
  }
  return out;
}

/** Which documents a read for `cutoff` takes (SQL; `inBooks` is the same in JavaScript). */
function documentFilter(tz: string, cutoff: string | null): SQL {
  if (cutoff === null) return sql`true`;
  const since = addDays(cutoff, -HISTORY_DAYS);
  // The local date of the last change, compared in SQL with the cutoff.
  return sql`(ledger_status IN ('AUTHORISED', 'SUBMITTED') OR issue_date IS NULL
             OR issue_date >= ${since}::date
             OR (ledger_updated_at AT TIME ZONE ${tz})::date > ${cutoff}::date)`;
}

/**
 * The documents' columns as `DocumentRow` has them. `version` is the row version PostgreSQL
 * gives every row (`xmin`, the writing transaction): an update writes a new one, so a kept row
 * whose version is still the table's is the row as it is now (`refreshBookRows`, ADR 0008).
 */
const documentColumns = (tz: string) => sql`
  id, external_id AS "externalId", source, ledger_status AS status,
  invoice_number AS number, contact_external_id AS "contactId",
  contact_name AS "contactName", category,
  issue_date::text AS "issueDate", due_date::text AS "dueDate",
  expected_date::text AS "expectedDate", amount::text AS total,
  amount_due::text AS "amountDue", currency, currency_rate::text AS "currencyRate",
  actual_date::text AS "paidDate",
  ${localDayOf(sql`ledger_updated_at`, tz)} AS "updatedOn", xmin::text AS version`;

/** Everything of the books but the documents and their payments (all read whole each time). */
async function readOtherRows(
  db: DbOrTx,
  org: ForecastOrg,
  input: { cutoff: string | null; includedBankAccounts: readonly string[] },
): Promise<Omit<BookRows, "cutoff" | "documents" | "paid" | "credited" | "orderBills" | "made">> {
  const orgId = org.id;
  const tz = org.timezone;
  const since = input.cutoff === null ? null : addDays(input.cutoff, -HISTORY_DAYS);
  const manualRead = db.execute(sql`
      SELECT id, source, amount::text AS amount, currency, currency_rate::text AS "currencyRate",
             expected_date::text AS "expectedDate", due_date::text AS "dueDate",
             issue_date::text AS "issueDate", contact_external_id AS "contactId", category,
             probability::text AS probability,
             ${localDayOf(sql`last_synced_at`, tz)} AS "enteredOn"
      FROM cash_items
      WHERE org_id = ${orgId} AND source IN ('MANUAL', 'PIPELINE') AND status = 'FORECAST'
      ORDER BY id COLLATE "C"`);
  const included = input.includedBankAccounts;
  const bankRead =
    included.length === 0
      ? null
      : db.execute(sql`
            SELECT type, contact_external_id AS "contactId", contact_name AS "contactName",
                   account_code AS category, date::text AS date, total::text AS amount, currency
            FROM bank_transactions
            WHERE org_id = ${orgId} AND status = 'AUTHORISED' AND type IN ('SPEND', 'RECEIVE')
              AND bank_account_external_id IN (${sql.join(
                included.map((e) => sql`${e}`),
                sql`, `,
              )})
              ${since === null ? sql`` : sql`AND date >= ${since}::date`}
            ORDER BY id COLLATE "C"`);
  const customersRead = db.execute(sql`
      SELECT external_id AS "contactId", name, (contact_status = 'ACTIVE') AS active,
             ${localDayOf(sql`ledger_updated_at`, tz)} AS "updatedOn"
      FROM contacts WHERE org_id = ${orgId} AND is_customer
      ORDER BY external_id COLLATE "C"`);
  // Awaited together: a query that fails leaves none of the others unobserved.
  const [accounts, orders, manualResult, bankResult, customerResult, excludedFromBurn] =
    await Promise.all([
      loadAccounts(db, orgId),
      readPurchaseOrders(db, org),
      manualRead,
      bankRead,
      customersRead,
      // Accounts the owner took out of burn (Settings → Account categories), as they are now.
      accountsExcludedFromBurn(db, orgId),
    ]);
  return {
    accounts,
    orders,
    manual: rows<ManualRow>(manualResult),
    bank: bankResult === null ? [] : rows<BankRow>(bankResult),
    customers: rows<BookCustomer>(customerResult),
    excludedFromBurn,
  };
}

/**
 * Does a read for `cutoff` take this document's payments? When it changed after `cutoff` (its
 * state then is rebuilt from them; every document when `cutoff` is null), when it is open now
 * (a part-paid receivable's remainder is timed from its first payment), or when it was paid on
 * two or more days (how its customer pays in parts, partial-payments.ts). The SQL of
 * `readPayments` is the same; `booksFromRows` keeps the payments of these documents only, so that
 * rows read for an earlier cutoff give the books a read for this one gives.
 */
function paymentsRead(
  d: DocumentRow,
  cutoff: string | null,
  payments: readonly { date: string }[] | undefined,
): boolean {
  if (cutoff === null || (d.updatedOn !== null && d.updatedOn > cutoff)) return true;
  if (d.status === "AUTHORISED" || d.status === "SUBMITTED") return true;
  return payments !== undefined && new Set(payments.map((p) => p.date)).size > 1;
}

/**
 * The payments of the documents `paymentsRead` takes, and the credit allocations of those changed
 * after `cutoff` (of every document when it is null).
 */
async function readPayments(
  db: DbOrTx,
  orgId: string,
  documents: readonly DocumentRow[],
  cutoff: string | null,
): Promise<{ paid: DatedAmounts; credited: DatedAmounts }> {
  const rebuilt = documents.filter((d) => {
    return cutoff === null || (d.updatedOn !== null && d.updatedOn > cutoff);
  });
  // Every document's when there is no cutoff: no list to send. The list goes as one array
  // parameter: a statement takes at most 65,535 parameters, and a cutoff long past can take
  // every document. The documents open now and those paid on two or more days are found by the
  // statement itself (an organisation can have tens of thousands open): two uncorrelated
  // subqueries, each hashed once, so the organisation's payments are scanned once.
  const ids = sql.param(rebuilt.map((d) => d.externalId ?? ""));
  const only =
    cutoff === null
      ? sql`true`
      : sql`(p.invoice_external_id = ANY(${ids}::text[])
          OR p.invoice_external_id IN (
            SELECT external_id FROM cash_items
            WHERE org_id = ${orgId} AND source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
              AND ledger_status IN ('AUTHORISED', 'SUBMITTED'))
          OR p.invoice_external_id IN (
            SELECT invoice_external_id FROM payments
            WHERE org_id = ${orgId} AND invoice_external_id IS NOT NULL AND status <> 'DELETED'
            GROUP BY invoice_external_id HAVING count(DISTINCT date) > 1))`;
  const paid = byDocument(
    rows<{ doc: string; date: string; amount: string }>(
      await db.execute(sql`
        SELECT p.invoice_external_id AS doc, p.date::text AS date, p.amount::text AS amount
        FROM payments p WHERE p.org_id = ${orgId} AND p.invoice_external_id IS NOT NULL
          AND p.status <> 'DELETED' AND ${only}
        ORDER BY p.date, p.amount, p.external_id COLLATE "C"`),
    ),
  );
  if (rebuilt.length === 0) return { paid, credited: new Map() };
  const onlyAlloc = cutoff === null ? sql`true` : sql`a.invoice_external_id = ANY(${ids}::text[])`;
  const credited = byDocument(
    rows<{ doc: string; date: string; amount: string }>(
      await db.execute(sql`
        SELECT a.invoice_external_id AS doc, COALESCE(a.date, cn.issue_date)::text AS date,
               a.amount::text AS amount
        FROM credit_note_allocations a
        JOIN credit_notes cn ON cn.org_id = a.org_id AND cn.id = a.credit_note_id
        WHERE a.org_id = ${orgId} AND a.invoice_external_id IS NOT NULL
          AND cn.ledger_status IN ('AUTHORISED', 'PAID')
          AND COALESCE(a.date, cn.issue_date) IS NOT NULL AND ${onlyAlloc}`),
    ),
  );
  return { paid, credited };
}

/**
 * The rows of an organisation's books (domain/forecasting/books.ts). `cutoff` set (the live
 * path): only what can matter on or after it is read: documents open now, changed after it, or
 * within the history window; payments of documents changed after it, open now or paid on two or
 * more days (`paymentsRead`), credit allocations of those changed after it. `cutoff` null (the
 * backtest): everything.
 */
export async function readBookRows(
  db: DbOrTx,
  org: ForecastOrg,
  input: { cutoff: string | null; includedBankAccounts: readonly string[] },
): Promise<BookRows> {
  // The queries depend on nothing read here: issued together, PostgreSQL runs the small ones (on
  // other pooled connections) while this process decodes the documents (a transaction or PGlite
  // runs them one after another, as before).
  const [others, docResult] = await Promise.all([
    readOtherRows(db, org, input),
    db.execute(sql`
      SELECT ${documentColumns(org.timezone)} FROM cash_items
      WHERE org_id = ${org.id} AND source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
        AND ${documentFilter(org.timezone, input.cutoff)}
      ORDER BY ${LEDGER_ORDER}`),
  ]);
  const documents = rows<DocumentRow>(docResult);
  const payments = await readPayments(db, org.id, documents, input.cutoff);
  return withDocuments({ cutoff: input.cutoff, documents, ...others, ...payments });
}

/**
 * The rows `readBookRows` would return for `cutoff` (not earlier than `kept.cutoff`), reading of
 * the documents only those whose row version is not the kept one: the ids and versions of the
 * documents a read for `cutoff` takes, then the changed and new ones whole. A few changed
 * documents (a sync) cost a fraction of reading all of them (ADR 0008). The other rows and the
 * payments of documents changed after the cutoff are read whole, as they are small.
 */
export async function refreshBookRows(
  db: DbOrTx,
  org: ForecastOrg,
  kept: BookRows,
  input: { cutoff: string; includedBankAccounts: readonly string[] },
): Promise<BookRows> {
  const [others, current] = await Promise.all([
    readOtherRows(db, org, input),
    db.execute(sql`
      SELECT id, xmin::text AS version FROM cash_items
      WHERE org_id = ${org.id} AND source IN ('LEDGER_INVOICE', 'LEDGER_BILL')
        AND ${documentFilter(org.timezone, input.cutoff)}
      ORDER BY ${LEDGER_ORDER}`),
  ]);
  const keptById = new Map(kept.documents.map((d) => [d.id, d]));
  const list = rows<{ id: string; version: string }>(current);
  const unchanged = (d: { id: string; version: string }) =>
    keptById.get(d.id)?.version === d.version;
  const stale = list.filter((d) => !unchanged(d)).map((d) => d.id);
  // One array parameter: a statement takes at most 65,535 parameters, and a bulk write can
  // change more documents.
  const fresh = new Map(
    rows<DocumentRow>(
      await db.execute(sql`
        SELECT ${documentColumns(org.timezone)} FROM cash_items
        WHERE org_id = ${org.id} AND id = ANY(${sql.param(stale)}::text[])`),
    ).map((d) => [d.id, d]),
  );
  // In the order of the current read; a document changed or deleted since it is left to the next
  // recompute (the epoch has moved again).
  const documents: DocumentRow[] = [];
  for (const current of list) {
    const d = unchanged(current) ? keptById.get(current.id) : fresh.get(current.id);
    if (d) documents.push(d);
  }
  const payments = await readPayments(db, org.id, documents, input.cutoff);
  return withDocuments({ cutoff: input.cutoff, documents, ...others, ...payments });
}

/** The service id of an account code (the first account of the code), null without one. */
function accountOf(read: Pick<BookRows, "accounts">) {
  const { byCode } = read.accounts;
  return (code: string | null) => (code ? (byCode.get(code) ?? null) : null);
}

/** No payments or credits: one list for every document without any. */
const NONE: readonly { date: string; amount: string }[] = [];

/**
 * The payments and credit allocations a document of the books for `cutoff` (`docRows`) holds:
 * credit allocations are read only for documents changed after the cutoff (their state then is
 * rebuilt from them): those of the documents changed after this one; payments also of the
 * documents open now or paid on two or more days (`paymentsRead`). The lists read, or NONE.
 */
function datedAmounts(
  read: Pick<BookRows, "paid" | "credited">,
  docRows: readonly DocumentRow[],
  cutoff: string | null,
) {
  const rebuilt = new Set(
    docRows
      .filter((d) => cutoff === null || (d.updatedOn !== null && d.updatedOn > cutoff))
      .map((d) => d.externalId ?? ""),
  );
  return {
    payments: (d: DocumentRow) => {
      const list = d.externalId === null ? undefined : read.paid.get(d.externalId);
      return (list && paymentsRead(d, cutoff, list) && list) || NONE;
    },
    credits: (d: DocumentRow) =>
      (d.externalId !== null && rebuilt.has(d.externalId) && read.credited.get(d.externalId)) ||
      NONE,
  };
}

/** A document of the books, from its row and the payments and credits it holds. */
function bookDocument(
  d: DocumentRow,
  account: (code: string | null) => string | null,
  payments: BookDocument["payments"],
  credits: BookDocument["credits"],
): BookDocument {
  return {
    id: d.id,
    type: d.source === "LEDGER_INVOICE" ? "ACCREC" : "ACCPAY",
    status: d.status ?? "DRAFT",
    contactId: d.contactId,
    contactName: d.contactName,
    accountId: account(d.category),
    issueDate: d.issueDate,
    dueDate: d.dueDate,
    expectedDate: d.expectedDate,
    total: d.total,
    amountDue: d.amountDue,
    currency: d.currency,
    currencyRate: d.currencyRate,
    paidDate: d.paidDate,
    updatedOn: d.updatedOn,
    payments,
    credits,
  };
}

/**
 * What is made once per rows read, for every cutoff the rows give books for: the bills each
 * purchase order can be matched to (`candidateBills`), and each row's document as the books of the read's
 * cutoff hold it (`made`), which `booksFromRows` takes for a later cutoff unless its payments or
 * credits differ then. Making ~120,000 documents for every date was half of `booksFromRows`
 * (docs/adr/0011-books-documents-made-once-per-rows-read.md).
 */
function withDocuments(rows: Omit<BookRows, "orderBills" | "made">): BookRows {
  const account = accountOf(rows);
  const lists = datedAmounts(rows, rows.documents, rows.cutoff);
  return {
    ...rows,
    orderBills: candidateBills(rows.orders, rows.documents),
    made: rows.documents.map((d) => bookDocument(d, account, lists.payments(d), lists.credits(d))),
  };
}

/**
 * The books for `cutoff` from rows read for it or for an earlier cutoff (`read.cutoff`): the
 * rows an earlier read holds beyond this cutoff's are left out, so the books are those a read
 * for `cutoff` gives (the same rows in the same order). Pure.
 */
export function booksFromRows(org: ForecastOrg, read: BookRows, cutoff: string | null): Books {
  if (read.cutoff !== null && (cutoff === null || cutoff < read.cutoff)) {
    throw new Error(`books read for ${read.cutoff} cannot give the books of ${cutoff}`);
  }
  const since = cutoff === null ? null : addDays(cutoff, -HISTORY_DAYS);
  const account = accountOf(read);
  const docRows: DocumentRow[] = [];
  const made: BookDocument[] = [];
  read.documents.forEach((d, i) => {
    if (!inBooks(d, cutoff, since)) return;
    docRows.push(d);
    made.push(read.made[i] as BookDocument);
  });
  // The document made when the rows were read, unless its payments or credits for this cutoff
  // are other lists (it changed between the two cutoffs): the rest of it is its row's.
  const lists = datedAmounts(read, docRows, cutoff);
  const documents = docRows.map((d, k) => {
    const payments = lists.payments(d);
    const credits = lists.credits(d);
    const kept = made[k];
    return kept && kept.payments === payments && kept.credits === credits
      ? kept
      : bookDocument(d, account, payments, credits);
  });

  const purchaseOrders = matchPurchaseOrders(read.orders, read.orderBills, account, (d) =>
    inBooks(d, cutoff, since),
  );

  const manualItems: BookManualItem[] = read.manual.map(({ category, ...m }) => ({
    ...m,
    ledgerStatus: null,
    accountId: account(category),
  }));

  const bankLines: RecurringHistoryEntry[] = read.bank
    .filter((t) => since === null || t.date >= since)
    .map((t) => ({
      kind: t.type === "RECEIVE" ? "receive" : "spend",
      contactId: t.contactId,
      contactName: t.contactName,
      accountId: account(t.category),
      date: t.date,
      dueDate: null,
      amount: t.amount,
      currency: t.currency,
      currencyRate: null,
    }));

  return {
    timezone: org.timezone,
    baseCurrency: org.baseCurrency,
    excludedFromBurn: read.excludedFromBurn,
    documents,
    purchaseOrders,
    manualItems,
    bankLines,
    customers: read.customers,
    accounts: read.accounts.infos,
  };
}

/**
 * The books of an organisation as of `cutoff` (null: all of them, for the backtest); see
 * `readBookRows`.
 */
export async function loadBooks(
  db: DbOrTx,
  org: ForecastOrg,
  input: { cutoff: string | null; includedBankAccounts: readonly string[] },
): Promise<Books> {
  return booksFromRows(org, await readBookRows(db, org, input), input.cutoff);
}

/** A supplier's bills (`order`: position in `all`) and the same bills by normalised number. */
interface SupplierBills {
  all: { order: number; number: string | null; doc: DocumentRow }[];
  byNumber: Map<string, SupplierBills["all"]>;
}

/**
 * Each supplier's bills that purchase orders can be matched to (not voided nor deleted), in the
 * order of their ids (ties in the match go to the first), and the same bills by number: an
 * organisation has thousands of billed orders per supplier, each looked up by its number and
 * reference.
 */
function billsBySupplier(documents: readonly DocumentRow[]): Map<string, SupplierBills> {
  const billsOf = new Map<string, SupplierBills>();
  const bills = documents.filter(
    (d) =>
      d.source !== "LEDGER_INVOICE" &&
      d.contactId !== null &&
      d.status !== "VOIDED" &&
      d.status !== "DELETED",
  );
  bills.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const d of bills) {
    const contactId = d.contactId ?? "";
    let supplier = billsOf.get(contactId);
    if (!supplier) {
      supplier = { all: [], byNumber: new Map() };
      billsOf.set(contactId, supplier);
    }
    const entry = { order: supplier.all.length, number: norm(d.number), doc: d };
    supplier.all.push(entry);
    if (entry.number === null) continue;
    const same = supplier.byNumber.get(entry.number);
    if (same) same.push(entry);
    else supplier.byNumber.set(entry.number, [entry]);
  }
  return billsOf;
}

/** A purchase order as read for the forecast (before its bill is matched). */
type PurchaseOrderRow = Pick<
  BookPurchaseOrder,
  | "id"
  | "status"
  | "total"
  | "currency"
  | "currencyRate"
  | "issueDate"
  | "deliveryDate"
  | "expectedArrivalDate"
  | "contactId"
  | "updatedOn"
> & {
  number: string | null;
  reference: string | null;
  suppressedReason: string | null;
  accountCode: string | null;
};

/** The open and billed purchase orders, with the account of their largest line. */
async function readPurchaseOrders(db: DbOrTx, org: ForecastOrg): Promise<PurchaseOrderRow[]> {
  return rows<PurchaseOrderRow>(
    await db.execute(sql`
      SELECT po.id, po.status, po.purchase_order_number AS number, po.reference,
             po.total::text AS total, po.currency, po.currency_rate::text AS "currencyRate",
             po.issue_date::text AS "issueDate", po.delivery_date::text AS "deliveryDate",
             po.expected_arrival_date::text AS "expectedArrivalDate",
             po.contact_external_id AS "contactId", po.suppressed_reason AS "suppressedReason",
             ${localDayOf(sql`po.ledger_updated_at`, org.timezone)} AS "updatedOn",
             (SELECT l.account_code FROM purchase_order_lines l
               WHERE l.org_id = po.org_id AND l.purchase_order_id = po.id AND l.account_code IS NOT NULL
               ORDER BY abs(COALESCE(l.line_amount, 0)) DESC, l.line_number LIMIT 1) AS "accountCode"
      FROM purchase_orders po
      WHERE po.org_id = ${org.id} AND po.status IN ('AUTHORISED', 'SUBMITTED', 'BILLED')
      ORDER BY po.id COLLATE "C"`),
  );
}

/**
 * The bills a purchase order can be matched to, in the order the match prefers them, as the
 * bill matcher (services/sync/suppress-purchase-orders.ts) matched them: of the same supplier,
 * those whose number is the order's number or reference (`byNumber`), and those of the same
 * total and currency dated 7 days before to 60 after the order (`byAmount`), which count only
 * when none of the first is in the books.
 */
interface CandidateBills {
  byNumber: DocumentRow[];
  byAmount: DocumentRow[];
}

/**
 * The candidate bills of every billed or suppressed purchase order, from all the rows read: made
 * once per rows read, for every cutoff the rows give books for (sorting ~20,000 bills by id and
 * scanning a supplier's bills for every date was most of `booksFromRows`); `matchPurchaseOrders`
 * takes of them those in the books of its cutoff, in the same order.
 */
function candidateBills(
  orders: readonly PurchaseOrderRow[],
  documents: readonly DocumentRow[],
): Map<string, CandidateBills> {
  const out = new Map<string, CandidateBills>();
  if (orders.length === 0) return out;
  const billsOf = billsBySupplier(documents);
  for (const po of orders) {
    if (po.suppressedReason === null && po.status !== "BILLED") continue;
    const bills = billsOf.get(po.contactId ?? "");
    const refs = [...new Set([norm(po.number), norm(po.reference)])].filter((r) => r !== null);
    // The bills whose number is the order's number or reference, in document order.
    const byNumber = refs
      .flatMap((r) => bills?.byNumber.get(r) ?? [])
      .sort((a, b) => a.order - b.order)
      .map((b) => b.doc);
    let byAmount: DocumentRow[] = [];
    if (po.issueDate !== null && bills) {
      const from = addDays(po.issueDate, -7);
      const to = addDays(po.issueDate, 60);
      const total = money(po.total);
      byAmount = bills.all
        .filter(
          (b) =>
            b.doc.currency === po.currency &&
            b.doc.issueDate !== null &&
            b.doc.issueDate >= from &&
            b.doc.issueDate <= to &&
            money(b.doc.total).eq(total),
        )
        .map((b) => b.doc);
    }
    out.set(po.id, { byNumber, byAmount });
  }
  return out;
}

/**
 * Purchase orders with the day their bill became known: of the order's candidate bills
 * (`candidateBills`) in the books, the one known first (the first in their order on a tie).
 */
function matchPurchaseOrders(
  list: readonly PurchaseOrderRow[],
  orderBills: ReadonlyMap<string, CandidateBills>,
  account: (code: string | null) => string | null,
  /** Is the bill in the books of the cutoff (the rows hold those of earlier cutoffs too)? */
  inTheBooks: (d: DocumentRow) => boolean,
): BookPurchaseOrder[] {
  const knownOn = (d: DocumentRow) => {
    const issued = d.issueDate ?? d.updatedOn;
    if (issued === null) return d.updatedOn;
    return d.updatedOn !== null && d.updatedOn < issued ? d.updatedOn : issued;
  };
  return list.map((po) => {
    let billedOn: string | null = null;
    let billId: string | null = null;
    const candidates = orderBills.get(po.id);
    if (candidates) {
      let match = candidates.byNumber.filter(inTheBooks);
      if (match.length === 0) match = candidates.byAmount.filter(inTheBooks);
      for (const b of match) {
        const on = knownOn(b);
        if (on !== null && (billedOn === null || on < billedOn)) {
          billedOn = on;
          billId = b.id;
        }
      }
      // Billed, but its bill is not found: billed when last changed.
      billedOn ??= po.updatedOn ?? "0000-01-01";
    }
    return {
      id: po.id,
      status: po.status,
      total: po.total,
      currency: po.currency,
      currencyRate: po.currencyRate,
      issueDate: po.issueDate,
      deliveryDate: po.deliveryDate,
      expectedArrivalDate: po.expectedArrivalDate,
      contactId: po.contactId,
      accountId: account(po.accountCode),
      updatedOn: po.updatedOn,
      billedOn,
      billId,
    };
  });
}

/** The included bank accounts' ids and the cash position as at `now`. */
export async function loadCash(db: DbOrTx, org: ForecastOrg, now: Date) {
  const cash = await computeStartingCash(db, org, now);
  return { cash, included: cash.accounts.filter((a) => a.included).map((a) => a.externalId) };
}
