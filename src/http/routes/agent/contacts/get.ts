import {
  ContactDrillResponseSchema,
  ContactIdParamSchema,
} from "../../../../contracts/agent/contacts.ts";
import { getContact } from "../../../../services/contacts/get-contact.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/**
 * `GET /api/agent/contacts/{id}` and its nested form. Register it after any static
 * `/api/agent/contacts/<word>` route (such as `/contacts/summary`): routes run in registration
 * order, and `{id}` would otherwise answer for the word.
 */
export const registerGetContact = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/contacts/{id}",
    operationId: "getContact",
    tags: ["contacts"],
    summary: "One contact with its money figures",
    description:
      "A contact by the ledger's ContactID, with available credit, revenue (trailing 12 " +
      "months and all time), the last invoice and bill and up to 50 recent paid invoices. 404 " +
      "`not_found` when there is none, and (without READ_SENSITIVE) when the contact is " +
      "flagged sensitive, with the same body.",
    scope: "READ_CONTACTS",
    params: ContactIdParamSchema,
    errors: ["not_found"],
    response: { schema: ContactDrillResponseSchema, description: "The contact." },
    handler: (ctx, { params }) => getContact({ ctx, id: params.id }),
  });
