import {
  CreditNoteDrillResponseSchema,
  documentIdParam,
} from "../../../../contracts/agent/credit-notes.ts";
import { getCreditNote } from "../../../../services/credit-notes/get-credit-note.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/credit-notes/{id}` and its nested form. */
export const registerGetCreditNote = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/credit-notes/{id}",
    operationId: "getCreditNote",
    tags: ["credit-notes"],
    summary: "One receivable credit note with allocations and lines",
    description:
      "A receivable credit note by our id, the ledger's CreditNoteID or its number (CN-####), " +
      "with its allocations and lines. 404 `not_found` when there is none, and (without " +
      "READ_SENSITIVE) when its contact is flagged sensitive, with the same body.",
    scope: "READ_INVOICES",
    params: documentIdParam("credit note", "CN-0001"),
    errors: ["not_found"],
    response: { schema: CreditNoteDrillResponseSchema, description: "The credit note." },
    handler: (ctx, { params }) => getCreditNote({ ctx, id: params.id }),
  });
