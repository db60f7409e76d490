import {
  type CreditNoteFilter,
  type CreditNoteRow,
  countCreditNotes,
  listCreditNotePage,
  sumCreditNotes,
} from "../../db/queries/credit-notes.ts";
import { type CashItemStatus, LEDGER_STATUSES, type LedgerStatus } from "../../db/schema/index.ts";
import { dateTimeOf, decimalText } from "../../domain/pagination/format.ts";
import { parseStatusFilter } from "../../domain/pagination/params.ts";
import type { StatusTotals } from "../../domain/pagination/totals.ts";
import { requireScope, type ServiceContext } from "../context.ts";
import { InvalidParameterError } from "../errors.ts";
import {
  bindCursor,
  countAndTotals,
  cutListPage,
  hiddenContacts,
  isHidden,
  planListPage,
} from "../invoices/paging.ts";

/** The query of GET /api/agent/credit-notes, validated by the route. */
export interface ListCreditNotesInput {
  /** Comma-separated ledger statuses, matched as they are (DRAFT … DELETED). */
  status?: string | string[] | undefined;
  contactId?: string | undefined;
  /** `YYYY-MM-DD`, inclusive, on the issue date. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  cursor?: string | undefined;
  limit: number;
  autoPaginate: boolean;
  totals: boolean;
}

/** A receivable credit note (spec: CreditNote). */
export interface CreditNote {
  id: string;
  externalId: string;
  creditNoteNumber?: string;
  contactId?: string;
  contactName?: string;
  issueDate?: string;
  status: CashItemStatus;
  ledgerStatus: LedgerStatus;
  total: string;
  remainingCredit: string;
  allocatedAmount: string;
  currency: string;
}

export interface CreditNotesPage {
  creditNotes: CreditNote[];
  nextCursor: string | null;
  totalCount: number;
  redactedItemCount: number;
  truncated?: true;
  totals?: StatusTotals;
  totalsTruncated?: true;
}

/** The API row, keys in the spec's order. */
export function toCreditNote(row: CreditNoteRow): CreditNote {
  // Filled in order below; every required field is set before the object escapes.
  const out = { id: row.id, externalId: row.externalId } as CreditNote;
  if (row.creditNoteNumber !== null) out.creditNoteNumber = row.creditNoteNumber;
  if (row.contactExternalId !== null) out.contactId = row.contactExternalId;
  if (row.contactName !== null) out.contactName = row.contactName;
  if (row.issueDate !== null) out.issueDate = dateTimeOf(row.issueDate);
  out.status = row.status;
  out.ledgerStatus = row.ledgerStatus;
  out.total = decimalText(row.total);
  out.remainingCredit = decimalText(row.remainingCredit);
  out.allocatedAmount = decimalText(row.allocatedAmount);
  out.currency = row.currency;
  return out;
}

/**
 * One page (or with autoPaginate the whole set up to 5,000) of the organisation's receivable
 * credit notes, every status, in the order issueDate DESC, id DESC (undated first). Without
 * READ_SENSITIVE, credit notes of sensitive contacts are withheld and counted in
 * `redactedItemCount`; `totalCount` and `totals` (over `total`) count every matched row.
 *
 * @throws ServiceError `invalid_cursor`, `invalid_parameter` (dateFrom after dateTo).
 */
export async function listCreditNotes({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: ListCreditNotesInput;
}): Promise<CreditNotesPage> {
  requireScope(ctx, "READ_INVOICES");
  if (input.dateFrom && input.dateTo && input.dateFrom > input.dateTo) {
    throw new InvalidParameterError("dateFrom", "dateFrom must not be after dateTo.");
  }
  const statuses = parseStatusFilter(input.status, LEDGER_STATUSES);
  const filter: CreditNoteFilter = {
    orgId: ctx.org.id,
    statuses,
    contactId: input.contactId,
    dateFrom: input.dateFrom,
    dateTo: input.dateTo,
  };
  const binding = bindCursor("credit-notes", ctx.org.id, {
    status: statuses,
    contactId: input.contactId ?? null,
    dateFrom: input.dateFrom ?? null,
    dateTo: input.dateTo ?? null,
  });
  const plan = planListPage(input, binding);
  const [fetched, counted, hidden] = await Promise.all([
    listCreditNotePage(ctx.db, filter, { after: plan.after, limit: plan.fetchLimit }),
    countAndTotals(
      input.totals,
      LEDGER_STATUSES,
      () => countCreditNotes(ctx.db, filter),
      () => sumCreditNotes(ctx.db, filter),
    ),
    hiddenContacts(ctx),
  ]);
  const page = cutListPage(fetched, input, (r) => ({ key: r.issueDate, id: r.id }), binding);
  let redactedItemCount = 0;
  const creditNotes: CreditNote[] = [];
  for (const row of page.rows) {
    if (isHidden(hidden, row.contactExternalId)) redactedItemCount += 1;
    else creditNotes.push(toCreditNote(row));
  }
  return {
    creditNotes,
    nextCursor: page.nextCursor,
    totalCount: counted.totalCount,
    redactedItemCount,
    ...(page.truncated ? { truncated: true as const } : {}),
    ...(counted.totals ? { totals: counted.totals } : {}),
    ...(counted.totalsTruncated ? { totalsTruncated: true as const } : {}),
  };
}
