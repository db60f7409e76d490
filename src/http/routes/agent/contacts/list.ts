import {
  ContactsListResponseSchema,
  ListContactsQuerySchema,
} from "../../../../contracts/agent/contacts.ts";
import { PAGING } from "../../../../contracts/agent/invoices.ts";
import { listContacts } from "../../../../services/contacts/list-contacts.ts";
import type { Api } from "../../../api.ts";
import { type ListRouteDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/contacts` and `GET /api/agent/orgs/{orgId}/contacts`. */
export const registerListContacts = (api: Api, deps: ListRouteDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/contacts",
    operationId: "listContacts",
    tags: ["contacts"],
    summary: "List contacts (customers and suppliers)",
    description:
      'The organisation\'s contacts. `totalCount` answers "how many customers" without ' +
      `paging.\n\n**Order**: by \`sort\`, then \`id\` descending. ${PAGING}\n\n` +
      "**Sensitive data**: without READ_SENSITIVE, contacts flagged sensitive are absent and " +
      "counted in `redactedItemCount`; `totalCount` and `totals` count every matched contact.",
    scope: "READ_CONTACTS",
    query: ListContactsQuerySchema,
    errors: ["invalid_cursor"],
    response: { schema: ContactsListResponseSchema, description: "A page of contacts." },
    handler: (ctx, { query }) => listContacts({ ctx, input: query, paging: deps.paging }),
  });
