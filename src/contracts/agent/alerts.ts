import { z } from "@hono/zod-openapi";

const CtaSchema = z
  .object({
    label: z.string().openapi({ description: "Button text.", example: "Manage billing" }),
    url: z.string().openapi({
      description: "The settings screen page to open, relative to the service's base URL.",
      example: "/settings/billing",
    }),
  })
  .openapi("AlertCta", { description: "Where a person can act on the alert." });

export const BillingAlertSchema = z
  .object({
    severity: z.enum(["warn", "critical"]).openapi({ example: "warn" }),
    kind: z
      .enum([
        "past_due",
        "canceled",
        "trial_ended",
        "trial_ending",
        "credits_low",
        "credits_exhausted",
      ])
      .openapi({
        description:
          "Which trigger fired (beyond the spec, for programs): `past_due`, `canceled`, " +
          "`trial_ended` (critical); `trial_ending` (5 days or fewer left: warn, critical on the " +
          "last day); `credits_low` (90% or more of the window used: warn); `credits_exhausted` " +
          "(no credit left: critical). When several fire, the most severe is shown.",
        example: "credits_low",
      }),
    message: z.string().openapi({
      description: "Plain-language explanation for the user.",
      example: "225 of 250 query credits of this 5-hour window are used (25 credits left).",
    }),
    cta: CtaSchema,
  })
  .openapi("BillingAlert", {
    description:
      "Present only when billing needs attention: trial ending within 5 days, credit use at 90% " +
      "or more of the window, or a past-due, canceled or ended subscription.",
  });

export const LedgerAlertSchema = z
  .object({
    severity: z.enum(["warn", "critical"]).openapi({ example: "critical" }),
    kind: z.enum(["reconnect_required", "service_issue", "no_connection"]).openapi({
      description:
        "`reconnect_required` (critical): the ledger refused our authorization (consent revoked, " +
        "refresh token expired or refused); data is stale and will not update until an owner or " +
        "admin reconnects. `service_issue` (warn): syncs are failing and retried automatically: " +
        "the ledger returns errors (its circuit breaker is open until a trial call succeeds), " +
        "refuses calls (429), the organisation's daily call budget is spent (retried after the " +
        "next UTC midnight), or a sync failed on a malformed record; data may be up to 12 hours " +
        "old. The spec lists a tripped circuit breaker under `reconnect_required`; here it is " +
        "`service_issue`, because the breaker closes by itself and needs no one to act. " +
        "`no_connection` (warn): no ledger connected, or disconnected (the data shown is what " +
        "the last sync read and no longer updates). An organisation fed by imported files counts " +
        "as connected to its file source.",
      example: "service_issue",
    }),
    message: z.string().openapi({
      description:
        "Plain-language explanation. For `service_issue` it says why syncs wait and when the " +
        "next attempt is (`next attempt at 2026-03-01 10:01 UTC`, or `next attempt due now`).",
      example:
        "The ledger's daily call limit for this organisation is used up, so syncs pause until " +
        "it resets (next attempt at 2026-03-02 00:00 UTC); data may be up to 12 hours old.",
    }),
    lastSuccessfulSync: z.string().nullable().openapi({
      description: "When the last sync succeeded (ISO 8601); null if never.",
      example: "2026-03-01T06:00:00.000Z",
    }),
    nextAttemptAt: z
      .string()
      .optional()
      .openapi({
        description:
          "`service_issue` of a live ledger connection only: when the service will try the " +
          "ledger again (ISO 8601). An addition to the spec's fields; the message says it too. " +
          "Absent when the time is not known (a state set by an operator).",
        example: "2026-03-02T00:00:00.000Z",
      }),
    cta: CtaSchema,
  })
  .openapi("LedgerAlert", {
    description: "Present only when the organisation's ledger connection needs attention.",
  });

/** The two optional alert fields every successful JSON body may carry. */
export const alertFields = {
  billingAlert: BillingAlertSchema.optional(),
  ledgerAlert: LedgerAlertSchema.optional(),
};

/**
 * A response schema extended with the optional `billingAlert` and `ledgerAlert` (spec rule 4:
 * every successful response can carry them). Apply it before `.openapi("Name")`.
 */
export function withAlerts<T extends z.ZodRawShape>(schema: z.ZodObject<T>) {
  return schema.extend(alertFields);
}

/**
 * The response schema as documented: unchanged when it already declares the alerts (schemas
 * built with `withAlerts`), else extended with them (OpenAPI then shows `allOf` of the named
 * schema and the two alert fields). The pipeline adds alerts to every organisation route's body,
 * so every such route must document them; this keeps a route that forgot `withAlerts` honest.
 */
export function documentedWithAlerts<S extends z.ZodType>(schema: S): z.ZodType {
  if (!(schema instanceof z.ZodObject)) return schema;
  const object = schema as unknown as z.ZodObject<z.ZodRawShape>;
  if ("billingAlert" in object.shape && "ledgerAlert" in object.shape) return schema;
  return withAlerts(object);
}
