export type {
  BillsResponse,
  Invoice,
  InvoicesResponse,
} from "../../../../contracts/agent/invoices.ts";
export {
  BillsResponseSchema,
  InvoicesResponseSchema,
} from "../../../../contracts/agent/invoices.ts";
export { registerListInvoices } from "./list.ts";
