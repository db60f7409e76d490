import type { z } from "@hono/zod-openapi";
import type { InvoiceLineSchema, InvoiceSchema } from "../../contracts/agent/invoices.ts";
import {
  type CashDocumentLineRow,
  type CashDocumentRow,
  cashDocumentQueriesBySource,
  type DocumentSource,
  listCashDocumentLines,
  listGatingRows,
} from "../../db/queries/cash-items.ts";
import { readOrgDataEpoch } from "../../db/queries/data-epochs.ts";
import { LEDGER_STATUSES } from "../../db/schema/index.ts";
import {
  type AccountLabels,
  accountOf,
  indexAccountLabels,
  isSensitiveAccount,
  UNCATEGORISED,
} from "../../domain/pagination/account-labels.ts";
import { dateTimeOf, decimalText, decimalTextOrNull } from "../../domain/pagination/format.ts";
import type { StatusTotals } from "../../domain/pagination/totals.ts";
import { canSeeSensitive, type ServiceContext } from "../context.ts";
import { type DocumentListInput, documentFilter } from "./document-lists.ts";
import {
  countWithStatusTotals,
  isHidden,
  type ListFields,
  type ListPaging,
  listBody,
  loadListPage,
  planListPage,
} from "./paging.ts";

/**
 * The query of GET /api/agent/invoices and /bills, validated by the route: ledger statuses,
 * dates on the document date (issue date, else due date), and `lines`.
 */
export interface ListDocumentsInput extends DocumentListInput {
  lines: boolean;
}

/** An invoice or bill line (spec: InvoiceLine). */
export type InvoiceLine = z.infer<typeof InvoiceLineSchema>;

/** An invoice or bill (spec: Invoice). Optional fields are absent rather than null. */
export type Invoice = z.infer<typeof InvoiceSchema>;

/** The two document lists: each is the name of its array and of its cursors' binding. */
export type DocumentList = "invoices" | "bills";

/** What the lists answer: the array (`invoices` or `bills`), then the list fields. */
export type DocumentPage<K extends DocumentList> = {
  [P in K]: Invoice[];
} & ListFields<StatusTotals>;

/** The cash-item source of each list. */
const SOURCE: Record<DocumentList, DocumentSource> = {
  invoices: "LEDGER_INVOICE",
  bills: "LEDGER_BILL",
};

/**
 * One page (or, with autoPaginate, the whole set up to 5,000 rows) of the organisation's
 * invoices or bills, in the order documentDate DESC, id DESC (documentDate = issue date, else
 * due date; documents without either come first).
 *
 * - The page is cut before redaction; without READ_SENSITIVE, rows of sensitive contacts (and,
 *   with `lines`, rows with a line on a sensitive account) are then dropped and counted in
 *   `redactedItemCount`. So `rows + redactedItemCount` is the page every key gets, and cursors
 *   line up across keys.
 * - `totalCount` and `totals` count every matched row, before redaction, in SQL.
 *
 * @throws ServiceError `invalid_cursor`, `invalid_parameter` (dateFrom after dateTo).
 */
export async function listLedgerDocuments<K extends DocumentList>(
  ctx: ServiceContext,
  list: K,
  input: ListDocumentsInput,
  paging: ListPaging,
): Promise<DocumentPage<K>> {
  const orgId = ctx.org.id;
  const source = SOURCE[list];
  const parsed = documentFilter(orgId, list, input, LEDGER_STATUSES);
  const filter = parsed.filter;
  const queries = cashDocumentQueriesBySource[source];
  const binding = parsed.binding;
  const plan = planListPage(input, binding, paging.cursorKey);
  const seeSensitive = canSeeSensitive(ctx);
  const [{ page, counted }, gating] = await Promise.all([
    loadListPage(input, plan, binding, paging, {
      page: (after, limit) => queries.page(ctx.db, filter, { after, limit }),
      position: (row) => ({ key: row.documentDate, id: row.id }),
      count: () => queries.count(ctx.db, filter),
      countWithTotals: () =>
        countWithStatusTotals(LEDGER_STATUSES, () => queries.sum(ctx.db, filter)),
      epoch: () => readOrgDataEpoch(ctx.db, orgId),
    }),
    // Lines need every account's name; otherwise only sensitive codes matter (to mask
    // `category`), and nothing at all for a READ_SENSITIVE key.
    listGatingRows(ctx.db, orgId, {
      accounts: input.lines ? "all" : seeSensitive ? "none" : "sensitive",
      contacts: !seeSensitive,
    }),
  ]);
  const hidden = new Set(gating.sensitiveContacts);
  const accounts = indexAccountLabels(gating.accounts);

  // Rows of sensitive contacts go first, so their lines are never read.
  let redactedItemCount = 0;
  const visible: CashDocumentRow[] = [];
  for (const row of page.rows) {
    if (isHidden(hidden, row.contactExternalId)) redactedItemCount += 1;
    else visible.push(row);
  }
  const linesByItem = input.lines
    ? groupLines(
        await listCashDocumentLines(
          ctx.db,
          orgId,
          visible.map((r) => r.id),
        ),
      )
    : undefined;

  const rows: Invoice[] = [];
  for (const row of visible) {
    let lines: InvoiceLine[] | undefined;
    if (linesByItem) {
      const lineRows = linesByItem.get(row.id) ?? [];
      if (
        !seeSensitive &&
        lineRows.some((l) => isSensitiveAccount(accounts, l.accountCode, l.accountExternalId))
      ) {
        redactedItemCount += 1;
        continue;
      }
      lines = lineRows.map((l) => toInvoiceLine(l, row.currency, source, accounts));
    }
    rows.push(toInvoice(row, lines, seeSensitive ? undefined : accounts));
  }

  return listBody(list, rows, page, await counted, redactedItemCount);
}

function groupLines(lines: CashDocumentLineRow[]): Map<string, CashDocumentLineRow[]> {
  const out = new Map<string, CashDocumentLineRow[]>();
  for (const line of lines) {
    const list = out.get(line.cashItemId);
    if (list) list.push(line);
    else out.set(line.cashItemId, [line]);
  }
  return out;
}

/**
 * The API row, its keys in the spec's order (objects keep insertion order, so it is built in
 * order once rather than assembled and re-ordered). `labels` is given for keys without
 * READ_SENSITIVE: a `category` naming a sensitive account is then left out (codes of sensitive
 * accounts are masked like their names).
 */
function toInvoice(
  row: CashDocumentRow,
  lines: InvoiceLine[] | undefined,
  labels: AccountLabels | undefined,
): Invoice {
  // Filled in order below; every required field is set before the object escapes.
  const out = { id: row.id } as Invoice;
  if (row.externalId !== null) out.externalId = row.externalId;
  if (row.invoiceNumber !== null) out.invoiceNumber = row.invoiceNumber;
  if (row.reference !== null) out.reference = row.reference;
  out.amount = decimalText(row.amount);
  out.currency = row.currency;
  out.expectedDate = dateTimeOf(row.expectedDate);
  if (row.actualDate !== null) out.actualDate = dateTimeOf(row.actualDate);
  if (row.issueDate !== null) out.issueDate = dateTimeOf(row.issueDate);
  out.status = row.status;
  // The list's filter excludes rows without a ledger status.
  out.ledgerStatus = row.ledgerStatus ?? "DRAFT";
  if (row.contactExternalId !== null) out.contactId = row.contactExternalId;
  if (row.contactName !== null) out.contactName = row.contactName;
  if (row.category !== null && !(labels && isSensitiveAccount(labels, row.category))) {
    out.category = row.category;
  }
  if (lines) out.lines = lines;
  return out;
}

/**
 * A line as the spec shows it, keys in the spec's order. accountName: the chart's name for the
 * line's account (by code, else by AccountID), else "Uncategorised". Bills carry no discounts:
 * discountRate, discountAmount and lineSubtotal are always null on them.
 */
function toInvoiceLine(
  l: CashDocumentLineRow,
  currency: string,
  source: DocumentSource,
  labels: AccountLabels,
): InvoiceLine {
  const sales = source === "LEDGER_INVOICE";
  // Filled in order below; every required field is set before the object escapes.
  const out = { id: l.id, lineNumber: l.lineNumber } as InvoiceLine;
  if (l.accountCode !== null) out.accountCode = l.accountCode;
  out.accountName = accountOf(labels, l.accountCode, l.accountExternalId)?.name ?? UNCATEGORISED;
  out.lineAmount = decimalText(l.lineAmount);
  out.taxAmount = decimalText(l.taxAmount);
  out.quantity = decimalTextOrNull(l.quantity);
  out.unitAmount = decimalTextOrNull(l.unitAmount);
  out.discountRate = sales ? decimalTextOrNull(l.discountRate) : null;
  out.discountAmount = sales ? decimalTextOrNull(l.discountAmount) : null;
  out.lineSubtotal = sales ? decimalTextOrNull(l.lineSubtotal) : null;
  if (l.taxType !== null) out.taxType = l.taxType;
  out.currency = currency;
  if (l.description !== null) out.lineDescription = l.description;
  return out;
}
