import { and, asc, desc, eq, gte, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
import {
  type CashItemStatus,
  creditNoteAllocations,
  creditNoteLines,
  creditNotes,
  type LedgerStatus,
} from "../schema/index.ts";
import { descendingAfter, type KeysetAfter, type StatusCurrencySum } from "./cash-items.ts";

/*
 * Reads behind GET /api/agent/credit-notes and /credit-notes/{id}: receivable credit notes
 * (ACCRECCREDIT) only. Every query is filtered by org_id.
 */

/** The ledger's receivable credit-note type: the only one the API lists. */
export const RECEIVABLE_CREDIT = "ACCRECCREDIT";

export interface CreditNoteFilter {
  orgId: string;
  /** null = every status; an empty list matches nothing. */
  statuses: readonly LedgerStatus[] | null;
  contactId?: string | undefined;
  /** Inclusive bounds on the issue date. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

function creditNoteWhere(f: CreditNoteFilter): SQL | undefined {
  return and(
    eq(creditNotes.orgId, f.orgId),
    eq(creditNotes.type, RECEIVABLE_CREDIT),
    f.statuses === null
      ? undefined
      : f.statuses.length === 0
        ? sql`false`
        : inArray(creditNotes.ledgerStatus, [...f.statuses]),
    f.contactId === undefined ? undefined : eq(creditNotes.contactExternalId, f.contactId),
    f.dateFrom === undefined ? undefined : gte(creditNotes.issueDate, f.dateFrom),
    f.dateTo === undefined ? undefined : lte(creditNotes.issueDate, f.dateTo),
  );
}

/** A credit note row, before redaction. Decimals as PostgreSQL prints them. */
export interface CreditNoteRow {
  id: string;
  externalId: string;
  creditNoteNumber: string | null;
  reference: string | null;
  contactExternalId: string | null;
  contactName: string | null;
  issueDate: string | null;
  status: CashItemStatus;
  ledgerStatus: LedgerStatus;
  total: string;
  remainingCredit: string;
  /** total − remainingCredit, exact. */
  allocatedAmount: string;
  currency: string;
}

const columns = () => ({
  id: creditNotes.id,
  externalId: creditNotes.externalId,
  creditNoteNumber: creditNotes.creditNoteNumber,
  reference: creditNotes.reference,
  contactExternalId: creditNotes.contactExternalId,
  contactName: creditNotes.contactName,
  issueDate: creditNotes.issueDate,
  status: creditNotes.status,
  ledgerStatus: creditNotes.ledgerStatus,
  total: creditNotes.total,
  remainingCredit: creditNotes.remainingCredit,
  allocatedAmount: sql<string>`(${creditNotes.total} - ${creditNotes.remainingCredit})::text`,
  currency: creditNotes.currency,
});

/** A page in the order issueDate DESC, id DESC (undated first), strictly after `after`. */
export async function listCreditNotePage(
  db: DbOrTx,
  filter: CreditNoteFilter,
  opts: { after: KeysetAfter | undefined; limit: number },
): Promise<CreditNoteRow[]> {
  return db
    .select(columns())
    .from(creditNotes)
    .where(
      and(
        creditNoteWhere(filter),
        descendingAfter(creditNotes.issueDate, creditNotes.id, opts.after, "date"),
      ),
    )
    .orderBy(desc(creditNotes.issueDate), desc(creditNotes.id))
    .limit(opts.limit);
}

export async function countCreditNotes(db: DbOrTx, filter: CreditNoteFilter): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(creditNotes)
    .where(creditNoteWhere(filter));
  return Number(row?.n ?? 0);
}

/**
 * The totals aggregate, in SQL: matched rows grouped by (status, currency), each group's count
 * and summed `total`. One pass over the matched set (PostgreSQL may split it over parallel
 * workers); never summed in JavaScript.
 */
export async function sumCreditNotes(
  db: DbOrTx,
  filter: CreditNoteFilter,
): Promise<StatusCurrencySum[]> {
  const rows = await db
    .select({
      status: sql<string>`${creditNotes.ledgerStatus}`,
      currency: creditNotes.currency,
      count: sql<number>`count(*)::int`,
      amount: sql<string>`sum(${creditNotes.total})::text`,
    })
    .from(creditNotes)
    .where(creditNoteWhere(filter))
    .groupBy(creditNotes.ledgerStatus, creditNotes.currency);
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}

/**
 * The receivable credit note named by `ref`: our id, the ledger's CreditNoteID, or its number.
 * Several matches (a number reused) resolve to our id first, then the ledger id, then the most
 * recent by issue date and id.
 */
export async function findCreditNote(
  db: DbOrTx,
  orgId: string,
  ref: string,
): Promise<CreditNoteRow | undefined> {
  const [row] = await db
    .select(columns())
    .from(creditNotes)
    .where(
      and(
        eq(creditNotes.orgId, orgId),
        eq(creditNotes.type, RECEIVABLE_CREDIT),
        or(
          eq(creditNotes.id, ref),
          eq(creditNotes.externalId, ref),
          eq(creditNotes.creditNoteNumber, ref),
        ),
      ),
    )
    .orderBy(
      desc(sql`${creditNotes.id} = ${ref}`),
      desc(sql`${creditNotes.externalId} = ${ref}`),
      desc(creditNotes.issueDate),
      desc(creditNotes.id),
    )
    .limit(1);
  return row;
}

/** Lines of one credit note, by line number. */
export async function listCreditNoteLines(db: DbOrTx, orgId: string, creditNoteId: string) {
  return db
    .select({
      lineNumber: creditNoteLines.lineNumber,
      description: creditNoteLines.description,
      quantity: creditNoteLines.quantity,
      unitAmount: creditNoteLines.unitAmount,
      lineAmount: creditNoteLines.lineAmount,
      itemCode: creditNoteLines.itemCode,
      accountCode: creditNoteLines.accountCode,
    })
    .from(creditNoteLines)
    .where(and(eq(creditNoteLines.orgId, orgId), eq(creditNoteLines.creditNoteId, creditNoteId)))
    .orderBy(asc(creditNoteLines.lineNumber), asc(creditNoteLines.id));
}

/** Live allocations of one credit note, by date (undated last) then id. */
export async function listCreditNoteAllocations(db: DbOrTx, orgId: string, creditNoteId: string) {
  return db
    .select({
      invoiceNumber: creditNoteAllocations.invoiceNumber,
      invoiceExternalId: creditNoteAllocations.invoiceExternalId,
      amount: creditNoteAllocations.amount,
      date: creditNoteAllocations.date,
    })
    .from(creditNoteAllocations)
    .where(
      and(
        eq(creditNoteAllocations.orgId, orgId),
        eq(creditNoteAllocations.creditNoteId, creditNoteId),
      ),
    )
    .orderBy(sql`${creditNoteAllocations.date} asc nulls last`, asc(creditNoteAllocations.id));
}
