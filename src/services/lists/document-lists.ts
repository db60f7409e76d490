import type { DbOrTx } from "../../db/client.ts";
import { readOrgDataEpoch } from "../../db/queries/data-epochs.ts";
import type { CursorBinding, CursorPosition } from "../../domain/pagination/cursor.ts";
import { parseStatusFilter } from "../../domain/pagination/params.ts";
import type { StatusCurrencyGroup, StatusTotals } from "../../domain/pagination/totals.ts";
import type { ServiceContext } from "../context.ts";
import { InvalidParameterError } from "../errors.ts";
import {
  bindCursor,
  countWithStatusTotals,
  hiddenContacts,
  isHidden,
  type ListFields,
  type ListPaging,
  type ListRequest,
  listBody,
  loadListPage,
  planListPage,
} from "./paging.ts";

/*
 * What the document lists share: the filters of invoices, bills, credit notes and purchase
 * orders, and the whole verb of the lists by issue date gated by contact (credit notes, purchase
 * orders), which differ only in their table, status vocabulary and row.
 */

/** The query of a document list, validated by its route (invoices and bills add `lines`). */
export interface DocumentListInput extends ListRequest {
  /** Comma-separated statuses of the list's vocabulary (the parameter may repeat). */
  status?: string | string[] | undefined;
  contactId?: string | undefined;
  /** `YYYY-MM-DD`, inclusive, on the list's date. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  cursor?: string | undefined;
  /** Rows per page, 1 to 200. */
  limit: number;
  autoPaginate: boolean;
  totals: boolean;
}

/** A document list's parsed filters: what its queries take. */
export interface DocumentFilter<S extends string> {
  orgId: string;
  /** null = every status; an empty list matches nothing. */
  statuses: S[] | null;
  contactId?: string | undefined;
  /** Inclusive bounds on the list's date. */
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
}

/**
 * Parses a document list's filters (statuses of `vocabulary`; see `parseStatusFilter`) and binds
 * the list's cursors to them: a cursor of `resource` opens only with the same filters.
 * @throws InvalidParameterError `dateFrom` after `dateTo`.
 */
export function documentFilter<S extends string>(
  orgId: string,
  resource: string,
  input: DocumentListInput,
  vocabulary: readonly S[],
): { filter: DocumentFilter<S>; binding: CursorBinding } {
  if (input.dateFrom && input.dateTo && input.dateFrom > input.dateTo) {
    throw new InvalidParameterError("dateFrom", "dateFrom must not be after dateTo.");
  }
  const statuses = parseStatusFilter(input.status, vocabulary);
  const binding = bindCursor(resource, orgId, {
    status: statuses,
    contactId: input.contactId ?? null,
    dateFrom: input.dateFrom ?? null,
    dateTo: input.dateTo ?? null,
  });
  const filter: DocumentFilter<S> = {
    orgId,
    statuses,
    contactId: input.contactId,
    dateFrom: input.dateFrom,
    dateTo: input.dateTo,
  };
  return { filter, binding };
}

/** A row of a list by issue date, before redaction: what ordering and gating read. */
interface IssuedRow {
  id: string;
  issueDate: string | null;
  contactExternalId: string | null;
}

/** One list by issue date gated by contact: its queries, vocabulary and row. */
export interface IssuedDocumentList<
  K extends string,
  S extends string,
  Row extends IssuedRow,
  Out,
> {
  /** The array's name in the response. */
  name: K;
  /** The list's cursor binding (never change it: cursors in flight name it). */
  resource: string;
  /** The status vocabulary of the filter and of the totals' buckets. */
  statuses: readonly S[];
  /** Rows in the order issueDate DESC, id DESC (undated first), strictly after `after`. */
  page(
    db: DbOrTx,
    filter: DocumentFilter<S>,
    opts: { after: CursorPosition | undefined; limit: number },
  ): Promise<Row[]>;
  count(db: DbOrTx, filter: DocumentFilter<S>): Promise<number>;
  /** The totals aggregate: matched rows by (status, currency), each with its summed amount. */
  sum(db: DbOrTx, filter: DocumentFilter<S>): Promise<StatusCurrencyGroup[]>;
  /** The API row. */
  toRow(row: Row): Out;
}

/** The response of a list by issue date: its array named `K`, then the list fields. */
export type IssuedDocumentsPage<K extends string, Out> = {
  [P in K]: Out[];
} & ListFields<StatusTotals>;

/**
 * One page (or with autoPaginate the whole set up to 5,000) of the organisation's documents of
 * `list`, in the order issueDate DESC, id DESC (undated first). Without READ_SENSITIVE, documents
 * of sensitive contacts are withheld and counted in `redactedItemCount`; `totalCount` and
 * `totals` count every matched row. The caller checks the scope.
 *
 * @throws ServiceError `invalid_cursor`, `invalid_parameter` (dateFrom after dateTo).
 */
export async function listIssuedDocuments<
  K extends string,
  S extends string,
  Row extends IssuedRow,
  Out,
>(
  ctx: ServiceContext,
  input: DocumentListInput,
  paging: ListPaging,
  list: IssuedDocumentList<K, S, Row, Out>,
): Promise<IssuedDocumentsPage<K, Out>> {
  const { filter, binding } = documentFilter(ctx.org.id, list.resource, input, list.statuses);
  const plan = planListPage(input, binding, paging.cursorKey);
  const [{ page, counted }, hidden] = await Promise.all([
    loadListPage(input, plan, binding, paging, {
      page: (after, limit) => list.page(ctx.db, filter, { after, limit }),
      position: (r) => ({ key: r.issueDate, id: r.id }),
      count: () => list.count(ctx.db, filter),
      countWithTotals: () => countWithStatusTotals(list.statuses, () => list.sum(ctx.db, filter)),
      epoch: () => readOrgDataEpoch(ctx.db, ctx.org.id),
    }),
    hiddenContacts(ctx),
  ]);
  let redactedItemCount = 0;
  const rows: Out[] = [];
  for (const row of page.rows) {
    if (isHidden(hidden, row.contactExternalId)) redactedItemCount += 1;
    else rows.push(list.toRow(row));
  }
  return listBody(list.name, rows, page, await counted, redactedItemCount);
}
