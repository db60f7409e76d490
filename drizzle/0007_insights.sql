CREATE TABLE "contact_baselines" (
	"org_id" text NOT NULL,
	"contact_external_id" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"as_of_date" date NOT NULL,
	"is_customer" boolean NOT NULL,
	"first_order_date" date,
	"last_order_date" date,
	"first_paid_date" date,
	"order_count" integer DEFAULT 0 NOT NULL,
	"paid_invoice_count" integer DEFAULT 0 NOT NULL,
	"revenue_all_time" numeric DEFAULT '0' NOT NULL,
	"revenue_trailing_12m" numeric DEFAULT '0' NOT NULL,
	"cadence" text DEFAULT 'NONE' NOT NULL,
	"cadence_confidence" integer DEFAULT 0 NOT NULL,
	"median_interval_days" numeric,
	"payment_delay_median_days" numeric,
	"churn_class" text,
	"abc_class" text,
	"ltv_cumulative" numeric,
	"projected_ltv" numeric,
	"spend_all_time" numeric DEFAULT '0' NOT NULL,
	"bill_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "contact_baselines_org_id_contact_external_id_pk" PRIMARY KEY("org_id","contact_external_id")
);
--> statement-breakpoint
CREATE TABLE "daily_briefs" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"as_of_date" date NOT NULL,
	"generated_at" timestamp with time zone NOT NULL,
	"generator_tier" text NOT NULL,
	"payload" jsonb NOT NULL,
	"model" text,
	"fallback_reason" text
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"job" text NOT NULL,
	"run_key" text NOT NULL,
	"org_id" text,
	"status" text NOT NULL,
	"claimed_by" text NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"error" text,
	"details" jsonb
);
--> statement-breakpoint
CREATE TABLE "org_baselines" (
	"org_id" text PRIMARY KEY NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"as_of_date" date NOT NULL,
	"expected_lifetime_years" numeric NOT NULL,
	"gross_margin" numeric,
	"margin_from" date,
	"margin_to" date,
	"customers" integer DEFAULT 0 NOT NULL,
	"engaged_customers" integer DEFAULT 0 NOT NULL,
	"duration_ms" integer
);
--> statement-breakpoint
CREATE TABLE "org_insights" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"as_of_date" date NOT NULL,
	"kind" text NOT NULL,
	"window" text NOT NULL,
	"severity" text NOT NULL,
	"rank" integer NOT NULL,
	"impact" numeric NOT NULL,
	"text" text NOT NULL,
	"subject_contact_id" text,
	"redacted_text" text
);
--> statement-breakpoint
CREATE TABLE "summary_cache" (
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"cache_key" text NOT NULL,
	"data_version" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "summary_cache_org_id_kind_cache_key_pk" PRIMARY KEY("org_id","kind","cache_key")
);
--> statement-breakpoint
ALTER TABLE "contact_baselines" ADD CONSTRAINT "contact_baselines_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_briefs" ADD CONSTRAINT "daily_briefs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_runs" ADD CONSTRAINT "job_runs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_baselines" ADD CONSTRAINT "org_baselines_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_insights" ADD CONSTRAINT "org_insights_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "summary_cache" ADD CONSTRAINT "summary_cache_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_baselines_org_ltv_idx" ON "contact_baselines" USING btree ("org_id","ltv_cumulative");--> statement-breakpoint
CREATE INDEX "contact_baselines_org_spend_idx" ON "contact_baselines" USING btree ("org_id","spend_all_time");--> statement-breakpoint
CREATE UNIQUE INDEX "daily_briefs_org_date_key" ON "daily_briefs" USING btree ("org_id","as_of_date");--> statement-breakpoint
CREATE UNIQUE INDEX "job_runs_job_key" ON "job_runs" USING btree ("job","run_key");--> statement-breakpoint
CREATE INDEX "job_runs_org_idx" ON "job_runs" USING btree ("org_id","job","started_at");--> statement-breakpoint
CREATE INDEX "org_insights_org_idx" ON "org_insights" USING btree ("org_id","rank");