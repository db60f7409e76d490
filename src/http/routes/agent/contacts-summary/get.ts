import {
  ContactsSummaryQuerySchema,
  ContactsSummaryResponseSchema,
} from "../../../../contracts/agent/contacts-summary.ts";
import { getContactsSummary } from "../../../../services/summaries/contacts-summary.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/contacts/summary` and its nested form. */
export const registerContactsSummary = (api: Api, deps: PipelineDeps) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/contacts/summary",
    operationId: "getContactsSummary",
    tags: ["summaries"],
    summary: "Contacts summary",
    description:
      "Contact counts by type and by ABC class, the top customers by cumulative gross-profit " +
      "LTV and the top suppliers by bill amounts. Without READ_SENSITIVE, sensitive contacts in " +
      "the top lists are renamed (amounts and counts kept); the counts are never masked.",
    scope: "READ_SUMMARY",
    query: ContactsSummaryQuerySchema,
    response: { schema: ContactsSummaryResponseSchema, description: "The contacts summary." },
    handler: (ctx, { query }) => getContactsSummary(ctx, query),
  });
