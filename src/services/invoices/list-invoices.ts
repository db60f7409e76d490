import type { ServiceContext } from "../context.ts";
import { requireScope } from "../context.ts";
import {
  type DocumentPage,
  type ListDocumentsInput,
  listLedgerDocuments,
} from "./list-documents.ts";

export type { Invoice, InvoiceLine, ListDocumentsInput } from "./list-documents.ts";

/** GET /api/agent/invoices: `DocumentPage` with the rows named `invoices`. */
export type InvoicesPage = Omit<DocumentPage, "rows"> & { invoices: DocumentPage["rows"] };
/** GET /api/agent/bills: `DocumentPage` with the rows named `bills`. */
export type BillsPage = Omit<DocumentPage, "rows"> & { bills: DocumentPage["rows"] };

/** Keys in the spec's order: the array, nextCursor, totalCount, redactedItemCount, … */
function named<K extends string>(name: K, page: DocumentPage) {
  const { rows, ...rest } = page;
  return { [name]: rows, ...rest } as { [P in K]: DocumentPage["rows"] } & Omit<
    DocumentPage,
    "rows"
  >;
}

/** The organisation's receivable invoices (source LEDGER_INVOICE); see `listLedgerDocuments`. */
export async function listInvoices({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: ListDocumentsInput;
}): Promise<InvoicesPage> {
  requireScope(ctx, "READ_INVOICES");
  return named("invoices", await listLedgerDocuments(ctx, "LEDGER_INVOICE", input));
}

/** The organisation's payable bills (source LEDGER_BILL); see `listLedgerDocuments`. */
export async function listBills({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: ListDocumentsInput;
}): Promise<BillsPage> {
  requireScope(ctx, "READ_INVOICES");
  return named("bills", await listLedgerDocuments(ctx, "LEDGER_BILL", input));
}
