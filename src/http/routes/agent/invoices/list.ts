import {
  DOCUMENT_ORDER,
  InvoicesResponseSchema,
  ListDocumentsQuerySchema,
} from "../../../../contracts/agent/invoices.ts";
import { listInvoices } from "../../../../services/invoices/list-invoices.ts";
import type { Api } from "../../../api.ts";
import { type ListRouteDeps, registerOrgRoute } from "../agent-route.ts";

/** The sensitive-data rule of both document lists. */
export const DOCUMENT_GATING =
  "**Sensitive data**: without READ_SENSITIVE, documents of contacts flagged sensitive are " +
  "absent, and with `lines=true` so are documents with a line on an account flagged sensitive; " +
  "`redactedItemCount` counts the rows withheld from this page. `totalCount` and `totals` " +
  "count every matched row and are the same with and without READ_SENSITIVE; amounts are " +
  "never masked. Pages are cut before redaction, so they line up for every key.";

/** `GET /api/agent/invoices` and `GET /api/agent/orgs/{orgId}/invoices`. */
export const registerListInvoices = (api: Api, deps: ListRouteDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/invoices",
    operationId: "listInvoices",
    tags: ["invoices"],
    summary: "List receivable invoices",
    description:
      "Receivable invoices (source `LEDGER_INVOICE`), filterable by ledger status, contact and " +
      "date. Credit notes are not invoices: check /api/agent/credit-notes before concluding " +
      `that a credit does not exist.\n\n${DOCUMENT_ORDER}\n\n${DOCUMENT_GATING}`,
    scope: "READ_INVOICES",
    query: ListDocumentsQuerySchema,
    errors: ["invalid_cursor"],
    response: { schema: InvoicesResponseSchema, description: "A page of invoices." },
    handler: (ctx, { query }) => listInvoices({ ctx, input: query, paging: deps.paging }),
  });
