import { z } from "@hono/zod-openapi";
import { withAlerts } from "./alerts.ts";
import { decimal, listResponseFields } from "./invoices.ts";
import { autoPaginateParam, booleanParam, cursorParam, limitParam } from "./list-params.ts";

const instant = (description: string) =>
  z
    .string()
    .openapi({ description: `${description} ISO 8601.`, example: "2024-06-30T02:00:00.000Z" });
const nullableDateTime = (description: string) =>
  z
    .string()
    .nullable()
    .openapi({
      description: `${description} Midnight UTC of the ledger's calendar date; null when unknown.`,
      example: "2024-06-01T00:00:00.000Z",
    });

export const ContactSummarySchema = z
  .object({
    id: z.string().openapi({
      description: "The ledger's ContactID: the same value as `contactId` on documents.",
      example: "c0000000-0000-4000-8000-000000000001",
    }),
    name: z.string().openapi({ example: "Acme Corp" }),
    isCustomer: z.boolean(),
    isSupplier: z.boolean(),
    isSensitive: z.boolean().openapi({
      description: "Flagged sensitive (only ever true for keys with READ_SENSITIVE).",
    }),
    lastSyncedAt: instant("When a sync last changed the contact."),
    ltv: z
      .string()
      .nullable()
      .openapi({
        description:
          "Historical cumulative gross-profit lifetime value from the nightly baseline; null " +
          "until the baselines exist or when the contact is not a customer.",
        example: null,
      }),
  })
  .openapi("ContactSummary");

export const ContactsTotalsSchema = z
  .object({
    byType: z
      .object({
        customer: z.number().int().openapi({ description: "Customers that are not suppliers." }),
        supplier: z.number().int().openapi({ description: "Suppliers that are not customers." }),
        both: z.number().int().openapi({ description: "Customers that are also suppliers." }),
        neither: z.number().int().openapi({ description: "Contacts that are neither." }),
      })
      .openapi({ description: "Disjoint counts by type, always all four, zero-filled." }),
    grandTotal: z.object({ count: z.number().int() }).openapi({
      description: "Sum of byType: equal to totalCount.",
    }),
  })
  .openapi("ContactsTotals", {
    description: "Counts over the whole filtered set (honouring `type`), before redaction.",
  });

export const ContactsListResponseSchema = withAlerts(
  z.object({
    contacts: z.array(ContactSummarySchema),
    ...listResponseFields("Contacts", ContactsTotalsSchema),
  }),
).openapi("ContactsListResponse");

const ContactDocumentSchema = (name: string) =>
  z
    .object({
      id: z.string().openapi({ description: "Service id (as in /invoices or /bills)." }),
      externalId: z.string().nullable().openapi({ description: "The ledger's InvoiceID." }),
      invoiceNumber: z.string().nullable(),
      issueDate: nullableDateTime("The document's date."),
      dueDate: nullableDateTime("Due date."),
      amount: decimal("Gross total.", "500"),
      amountDue: z.string().nullable().openapi({ description: "Still owed (decimal string)." }),
      currency: z.string(),
      ledgerStatus: z.string().nullable().openapi({ description: "AUTHORISED or PAID." }),
      actualDate: nullableDateTime("When it was fully paid."),
    })
    .openapi(name, {
      description:
        "The contact's latest approved (AUTHORISED or PAID) document by issue date, then id.",
    });

export const RecentPaidInvoiceSchema = z
  .object({
    id: z.string(),
    externalId: z.string().nullable(),
    invoiceNumber: z.string().nullable(),
    amount: decimal("Gross total.", "500"),
    currency: z.string(),
    paidDate: nullableDateTime("When it was fully paid."),
    issueDate: nullableDateTime("The invoice's date."),
    accountCode: z
      .string()
      .nullable()
      .openapi({
        description:
          "Account code of the invoice's dominant line (largest ex-tax amount); null when none, " +
          "and without READ_SENSITIVE when that account is flagged sensitive.",
        example: "210",
      }),
    accountName: z.string().openapi({
      description:
        "That account's name; `Uncategorised` without one; `Sensitive account` when masked.",
      example: "Consulting Income",
    }),
  })
  .openapi("RecentPaidInvoice");

export const ContactDrillSchema = z
  .object({
    id: z.string().openapi({ description: "The ledger's ContactID." }),
    name: z.string(),
    isCustomer: z.boolean(),
    isSupplier: z.boolean(),
    isSensitive: z.boolean(),
    lastSyncedAt: instant("When a sync last changed the contact."),
    availableCredit: decimal(
      "Sum of remainingCredit over the contact's AUTHORISED receivable credit notes in the " +
        "organisation's base currency; foreign-currency credits excluded; `0` when none.",
      "55",
    ),
    revenueTrailing12m: decimal(
      "ACTUAL inflows over the 365 days ending today (the organisation's local date): the " +
        "amount paid on PAID sales invoices whose paid date falls in the window, in the base " +
        "currency (foreign documents at their own rate, to the cent); `0` when none.",
      "747.8",
    ),
    revenueAllTime: decimal("The same inflows, all time.", "1847.8"),
    expectedLifetimeYears: z.number().openapi({
      description:
        "Expected customer lifetime in years, clamped to [1, 5]. 1 until the lifetime " +
        "baselines exist.",
      example: 1,
    }),
    // The contact baselines' fields (docs/insights.md, "Contact baselines").
    grossMarginPercent: z
      .number()
      .nullable()
      .openapi({
        description:
          "The organisation's gross margin over the 12 full months before this one, a fraction " +
          "in [0,1]; null for a non-customer or before the baselines exist.",
        example: 0.62,
      }),
    projectedLtv: z
      .string()
      .nullable()
      .openapi({
        description:
          "revenueTrailing12m × grossMarginPercent × expectedLifetimeYears × churn retention " +
          "(Active 1, At-risk 0.5, Churned 0); `0` for a churned customer; null when " +
          "grossMarginPercent is null. Decimal string.",
        example: "1390.51",
      }),
    historicalLtv: z.string().nullable().openapi({
      description: "revenueAllTime × grossMarginPercent; null when grossMarginPercent is null.",
      example: "1145.64",
    }),
    paymentDelayMedianDays: z.string().nullable().openapi({
      description: "Median days late (paid date − due date) on paid invoices; negative = early.",
      example: "3.5",
    }),
    cadence: z
      .enum(["WEEKLY", "FORTNIGHTLY", "MONTHLY", "QUARTERLY", "ANNUAL", "NONE"])
      .nullable()
      .openapi({ description: "Ordering cadence; null for a non-customer.", example: "MONTHLY" }),
    cadenceConfidence: z.number().int().nullable().openapi({
      description: "0–100; 0 for NONE; null for a non-customer.",
      example: 83,
    }),
    abcClass: z.enum(["A", "B", "C"]).nullable().openapi({
      description: "80/20 tier; null for non-customers or before the customer is classified.",
      example: "A",
    }),
    lastInvoice: ContactDocumentSchema("ContactLastInvoice").optional(),
    lastBill: ContactDocumentSchema("ContactLastBill").optional(),
    recentPaidInvoices: z.array(RecentPaidInvoiceSchema).openapi({
      description:
        "Up to 50 most recent PAID sales invoices, by paid date then id. Without " +
        "READ_SENSITIVE, entries on sensitive accounts keep their place with accountName " +
        "`Sensitive account` and accountCode null.",
    }),
  })
  .openapi("ContactDrill", {
    description:
      "A contact with its money figures. LTV, margin, lifetime, cadence, ABC class and payment " +
      "delay arrive with the contact baselines.",
  });

export const ContactDrillResponseSchema = withAlerts(
  z.object({
    contact: ContactDrillSchema,
    redactedItemCount: z.number().int().openapi({
      description: "recentPaidInvoices entries masked; 0 with READ_SENSITIVE.",
    }),
  }),
).openapi("ContactDrillResponse");

export type ContactsListResponse = z.infer<typeof ContactsListResponseSchema>;
export type ContactDrillResponse = z.infer<typeof ContactDrillResponseSchema>;

export const ListContactsQuerySchema = z.object({
  type: z
    .enum(["customer", "supplier", "both"])
    .default("both")
    .openapi({
      param: { name: "type", in: "query" },
      description:
        "`customer` (the ledger's IsCustomer), `supplier` (IsSupplier) or `both` (every " +
        "contact, the default); a contact that is both appears under each. Anything else " +
        "answers 400 `invalid_parameter`.",
    }),
  sort: z
    .enum(["recent_desc", "revenue_desc", "spend_desc"])
    .default("recent_desc")
    .openapi({
      param: { name: "sort", in: "query" },
      description:
        "`recent_desc` (default): lastSyncedAt, newest first. `revenue_desc` and `spend_desc` " +
        "both sort by cumulative LTV (each row's `ltv`), highest first, nulls last " +
        "(non-customers and contacts without a baseline). The order runs over the whole set, " +
        "not page by page, so pages continue one another. Ties by `id`-order descending. " +
        "Anything else answers 400 `invalid_parameter`.",
    }),
  cursor: cursorParam,
  limit: limitParam,
  autoPaginate: autoPaginateParam,
  totals: booleanParam(
    "totals",
    "When true, adds `totals` (byType counts and grandTotal.count) over the whole filtered " +
      "set, before redaction. Over 100,000 contacts `totals` is omitted and `totalsTruncated` " +
      "is true.",
  ),
});

export const ContactIdParamSchema = z.object({
  id: z.string().openapi({
    param: { name: "id", in: "path" },
    description: "The ledger's ContactID (`id` in /contacts, `contactId` on documents).",
    example: "c0000000-0000-4000-8000-000000000001",
  }),
});
