import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";

export const ReachableOrgSchema = z
  .object({
    id: z.string().openapi({
      description: "Organisation id: the `{orgId}` of `/api/agent/orgs/{orgId}/…` routes.",
      example: "org_5kq2m8x3c9d1v7b4n6ht",
    }),
    name: z
      .string()
      .openapi({ description: "Organisation name.", example: "Harbour Coffee Pty Ltd" }),
    baseCurrency: z
      .string()
      .openapi({ description: "3-letter ISO base currency.", example: "AUD" }),
    timezone: z
      .string()
      .openapi({ description: "IANA time zone of the organisation.", example: "Australia/Sydney" }),
  })
  .openapi("ReachableOrg", { description: "An organisation the key can read." });

export const OrgsResponseSchema = withAlerts(
  z.object({
    keyKind: z.enum(["PARTNER", "USER"]).openapi({
      description:
        "PARTNER = advisory partner key (multi-client). USER = ordinary key: a USER `crun_` key " +
        "or an organisation `cr_live_` key.",
      example: "USER",
    }),
    orgs: z.array(ReachableOrgSchema).openapi({
      description:
        "Organisations the key can reach now, sorted by name (then id); may be empty. " +
        "Organisation key: its own organisation. USER key: organisations its creator is a " +
        "member of. PARTNER key: linked client organisations (all of them, or the pinned subset " +
        "still linked).",
    }),
  }),
).openapi("OrgsResponse", { description: "Reachable organisations and the key kind." });

export type OrgsResponse = z.infer<typeof OrgsResponseSchema>;
