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
  countWithStatusTotals,
  hiddenContacts,
  isHidden,
  type ListFields,
  type ListPaging,
  listBody,
  loadListPage,
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

export type CreditNotesPage = { creditNotes: CreditNote[] } & ListFields<StatusTotals>;

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
  paging,
}: {
  ctx: ServiceContext;
  input: ListCreditNotesInput;
  /** The deployment's cursor key and list sizes (routes make it once: `listPaging`). */
  paging: ListPaging;
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
  const plan = planListPage(input, binding, paging.cursorKey);
  const [{ page, counted }, hidden] = await Promise.all([
    loadListPage(input, plan, binding, paging, {
      page: (after, limit) => listCreditNotePage(ctx.db, filter, { after, limit }),
      position: (r) => ({ key: r.issueDate, id: r.id }),
      count: () => countCreditNotes(ctx.db, filter),
      countWithTotals: () =>
        countWithStatusTotals(LEDGER_STATUSES, () => sumCreditNotes(ctx.db, filter)),
    }),
    hiddenContacts(ctx),
  ]);
  let redactedItemCount = 0;
  const creditNotes: CreditNote[] = [];
  for (const row of page.rows) {
    if (isHidden(hidden, row.contactExternalId)) redactedItemCount += 1;
    else creditNotes.push(toCreditNote(row));
  }
  return listBody("creditNotes", creditNotes, page, await counted, redactedItemCount);
}
