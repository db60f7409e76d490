export { DOCUMENT_GATING, registerListInvoices } from "./list.ts";
export type { BillsResponse, Invoice, InvoicesResponse } from "./schema.ts";
export {
  BillsResponseSchema,
  InvoiceLineSchema,
  InvoiceSchema,
  InvoicesResponseSchema,
  ListDocumentsQuerySchema,
} from "./schema.ts";
