import {
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { organisations } from "./tenancy.ts";

/*
 * Baselines, insights, summary caches, daily briefs and job runs (docs/insights.md). Everything
 * here is derived from the ledger projection and can be recomputed at any time; nothing is the
 * only copy of a fact.
 */

const orgId = () =>
  text("org_id")
    .notNull()
    .references(() => organisations.id);
const day = (name: string) => date(name, { mode: "string" });
const instant = (name: string) => timestamp(name, { withTimezone: true });

export const CADENCES = [
  "WEEKLY",
  "FORTNIGHTLY",
  "MONTHLY",
  "QUARTERLY",
  "ANNUAL",
  "NONE",
] as const;
export type Cadence = (typeof CADENCES)[number];
export const CHURN_CLASSES = ["Active", "At-risk", "Churned"] as const;
export type ChurnClass = (typeof CHURN_CLASSES)[number];
export const ABC_CLASSES = ["A", "B", "C"] as const;
export type AbcClass = (typeof ABC_CLASSES)[number];

/**
 * One row per contact with ledger documents (or flagged customer), rewritten whole by each
 * baseline run. Money is in the organisation's base currency.
 */
export const contactBaselines = pgTable(
  "contact_baselines",
  {
    orgId: orgId(),
    /** The ledger's ContactID (contacts.external_id). */
    contactExternalId: text("contact_external_id").notNull(),
    computedAt: instant("computed_at").notNull(),
    /** The organisation's local date the run computed for. */
    asOfDate: day("as_of_date").notNull(),
    /** contacts.is_customer at the run. Customer-only fields are null otherwise. */
    isCustomer: boolean("is_customer").notNull(),
    /** Issue date of the first and last AUTHORISED or PAID sales invoice (an "order"). */
    firstOrderDate: day("first_order_date"),
    lastOrderDate: day("last_order_date"),
    /** Issue date of the first PAID sales invoice: the acquisition date of the cohorts. */
    firstPaidDate: day("first_paid_date"),
    orderCount: integer("order_count").notNull().default(0),
    paidInvoiceCount: integer("paid_invoice_count").notNull().default(0),
    /** ACTUAL inflows: Σ amounts paid on PAID sales invoices (as the contact drill counts them). */
    revenueAllTime: numeric("revenue_all_time").notNull().default("0"),
    /** The same over the 365 days to asOfDate, by paid date: the annual run-rate. */
    revenueTrailing12m: numeric("revenue_trailing_12m").notNull().default("0"),
    cadence: text("cadence", { enum: CADENCES }).notNull().default("NONE"),
    /** 0–100; 0 for NONE. */
    cadenceConfidence: integer("cadence_confidence").notNull().default(0),
    medianIntervalDays: numeric("median_interval_days"),
    /** Median (paid date − due date) in days over PAID sales invoices; negative = early. */
    paymentDelayMedianDays: numeric("payment_delay_median_days"),
    churnClass: text("churn_class", { enum: CHURN_CLASSES }),
    /** null for a customer = unclassified (warming up); always null for non-customers. */
    abcClass: text("abc_class", { enum: ABC_CLASSES }),
    /** Historical cumulative gross-profit LTV: revenueAllTime × gross margin. */
    ltvCumulative: numeric("ltv_cumulative"),
    projectedLtv: numeric("projected_ltv"),
    /** Σ gross amounts of AUTHORISED and PAID bills, all time (suppliers). */
    spendAllTime: numeric("spend_all_time").notNull().default("0"),
    billCount: integer("bill_count").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.contactExternalId] }),
    index("contact_baselines_org_ltv_idx").on(t.orgId, t.ltvCumulative),
    index("contact_baselines_org_spend_idx").on(t.orgId, t.spendAllTime),
  ],
);

/** Organisation-wide baseline figures, one row per organisation (the latest run). */
export const orgBaselines = pgTable("org_baselines", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organisations.id),
  computedAt: instant("computed_at").notNull(),
  asOfDate: day("as_of_date").notNull(),
  /** Median lifetime of engaged customers, clamped to [1, 5] years. */
  expectedLifetimeYears: numeric("expected_lifetime_years").notNull(),
  /** Gross margin over the trailing 12 months, a fraction in [0, 1]; null without revenue. */
  grossMargin: numeric("gross_margin"),
  marginFrom: day("margin_from"),
  marginTo: day("margin_to"),
  customers: integer("customers").notNull().default(0),
  engagedCustomers: integer("engaged_customers").notNull().default(0),
  /** How long the run took, for the nightly budget. */
  durationMs: integer("duration_ms"),
});

export const NOTE_KINDS = ["seasonality", "trend", "pipeline", "ar", "concentration"] as const;
export const NOTE_WINDOWS = ["this_month", "next_4w", "this_quarter"] as const;
export const NOTE_SEVERITIES = ["info", "warn"] as const;

/** Insight-engine notes of the latest run (the run replaces the organisation's set). */
export const orgInsights = pgTable(
  "org_insights",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    computedAt: instant("computed_at").notNull(),
    asOfDate: day("as_of_date").notNull(),
    kind: text("kind", { enum: NOTE_KINDS }).notNull(),
    window: text("window", { enum: NOTE_WINDOWS }).notNull(),
    severity: text("severity", { enum: NOTE_SEVERITIES }).notNull(),
    /** 1 = most impactful. */
    rank: integer("rank").notNull(),
    impact: numeric("impact").notNull(),
    text: text("text").notNull(),
    /** The contact the text names, if any: its sensitivity is checked when served. */
    subjectContactId: text("subject_contact_id"),
    /** The text with that contact's name replaced by "Sensitive contact". */
    redactedText: text("redacted_text"),
  },
  (t) => [index("org_insights_org_idx").on(t.orgId, t.rank)],
);

/**
 * Computed summary payloads (unredacted), reused while the organisation's data version (last
 * successful sync, last baseline run) is unchanged. Names are masked when served.
 */
export const summaryCache = pgTable(
  "summary_cache",
  {
    orgId: orgId(),
    kind: text("kind").notNull(),
    /** The resolved parameters, e.g. `2025-07-01..2026-06-30@2026-06`. */
    cacheKey: text("cache_key").notNull(),
    dataVersion: text("data_version").notNull(),
    computedAt: instant("computed_at").notNull(),
    payload: jsonb("payload").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.kind, t.cacheKey] })],
);

export const GENERATOR_TIERS = ["rules", "llm"] as const;
export type GeneratorTier = (typeof GENERATOR_TIERS)[number];

/** The daily brief (`DailyAgentBrief`): one row per organisation and UTC business day. */
export const dailyBriefs = pgTable(
  "daily_briefs",
  {
    id: text("id").primaryKey(),
    orgId: orgId(),
    /** The UTC business day. */
    asOfDate: day("as_of_date").notNull(),
    generatedAt: instant("generated_at").notNull(),
    generatorTier: text("generator_tier", { enum: GENERATOR_TIERS }).notNull(),
    /** DailyBriefPayload: mainDriver, riskSignal, recommendedAction. */
    payload: jsonb("payload").notNull(),
    /** The model that wrote an `llm` brief. */
    model: text("model"),
    /** Why the LLM tier was not used or was rejected (rules briefs of premium organisations). */
    fallbackReason: text("fallback_reason"),
  },
  (t) => [uniqueIndex("daily_briefs_org_date_key").on(t.orgId, t.asOfDate)],
);

export const JOB_RUN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type JobRunStatus = (typeof JOB_RUN_STATUSES)[number];

/**
 * Scheduled work, claimed by exactly one instance: the unique (job, run_key) row is the claim.
 * A `running` row older than the stale limit may be taken over (its instance died).
 */
export const jobRuns = pgTable(
  "job_runs",
  {
    id: text("id").primaryKey(),
    /** `baselines`, `brief`. */
    job: text("job").notNull(),
    /** e.g. `<orgId>:<YYYY-MM-DD>`. */
    runKey: text("run_key").notNull(),
    orgId: text("org_id").references(() => organisations.id),
    status: text("status", { enum: JOB_RUN_STATUSES }).notNull(),
    /** The instance that holds (or held) the claim. */
    claimedBy: text("claimed_by").notNull(),
    attempts: integer("attempts").notNull().default(1),
    startedAt: instant("started_at").notNull(),
    finishedAt: instant("finished_at"),
    error: text("error"),
    details: jsonb("details"),
  },
  (t) => [
    uniqueIndex("job_runs_job_key").on(t.job, t.runKey),
    index("job_runs_org_idx").on(t.orgId, t.job, t.startedAt),
  ],
);
