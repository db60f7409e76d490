import {
  CreditNotesResponseSchema,
  ListCreditNotesQuerySchema,
} from "../../../../contracts/agent/credit-notes.ts";
import { issueDateListRules } from "../../../../contracts/agent/invoices.ts";
import { listCreditNotes } from "../../../../services/credit-notes/list-credit-notes.ts";
import type { Api } from "../../../api.ts";
import { type ListRouteDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/credit-notes` and `GET /api/agent/orgs/{orgId}/credit-notes`. */
export const registerListCreditNotes = (api: Api, deps: ListRouteDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/credit-notes",
    operationId: "listCreditNotes",
    tags: ["credit-notes"],
    summary: "List receivable credit notes",
    description:
      "Receivable credit notes (the ledger's ACCRECCREDIT), which /api/agent/invoices leaves " +
      "out, in every status (filter `status=AUTHORISED` for live credits): who holds a credit, " +
      "what is left (`remainingCredit`) and what was applied (`allocatedAmount`).\n\n" +
      issueDateListRules("credit notes"),
    scope: "READ_INVOICES",
    query: ListCreditNotesQuerySchema,
    errors: ["invalid_cursor"],
    response: { schema: CreditNotesResponseSchema, description: "A page of credit notes." },
    handler: (ctx, { query }) => listCreditNotes({ ctx, input: query, paging: deps.paging }),
  });
