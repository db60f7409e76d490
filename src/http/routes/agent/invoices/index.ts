export { registerListInvoices } from "./list.ts";
export type { BillsResponse, Invoice, InvoicesResponse } from "./schema.ts";
export { BillsResponseSchema, InvoicesResponseSchema } from "./schema.ts";
