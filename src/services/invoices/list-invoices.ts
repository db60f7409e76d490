import type { StatusTotals } from "../../domain/pagination/totals.ts";
import type { ServiceContext } from "../context.ts";
import { requireScope } from "../context.ts";
import {
  type Invoice,
  type ListDocumentsInput,
  listLedgerDocuments,
} from "../lists/ledger-documents.ts";
import type { ListFields, ListPaging } from "../lists/paging.ts";

export type { Invoice, ListDocumentsInput } from "../lists/ledger-documents.ts";

/** GET /api/agent/invoices: the rows named `invoices`, then the list fields. */
export type InvoicesPage = { invoices: Invoice[] } & ListFields<StatusTotals>;
/** GET /api/agent/bills: the rows named `bills`, then the list fields. */
export type BillsPage = { bills: Invoice[] } & ListFields<StatusTotals>;

/** The organisation's receivable invoices (source LEDGER_INVOICE); see `listLedgerDocuments`. */
export async function listInvoices({
  ctx,
  input,
  paging,
}: {
  ctx: ServiceContext;
  input: ListDocumentsInput;
  /** The deployment's cursor key and list sizes (routes make it once: `listPaging`). */
  paging: ListPaging;
}): Promise<InvoicesPage> {
  requireScope(ctx, "READ_INVOICES");
  return listLedgerDocuments(ctx, "invoices", input, paging);
}

/** The organisation's payable bills (source LEDGER_BILL); see `listLedgerDocuments`. */
export async function listBills({
  ctx,
  input,
  paging,
}: {
  ctx: ServiceContext;
  input: ListDocumentsInput;
  /** The deployment's cursor key and list sizes (routes make it once: `listPaging`). */
  paging: ListPaging;
}): Promise<BillsPage> {
  requireScope(ctx, "READ_INVOICES");
  return listLedgerDocuments(ctx, "bills", input, paging);
}
