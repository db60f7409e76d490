CREATE TABLE "account_balances" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"as_at_date" date NOT NULL,
	"account_external_id" text NOT NULL,
	"name" text NOT NULL,
	"section" text,
	"balance" numeric NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cash_overrides" (
	"org_id" text PRIMARY KEY NOT NULL,
	"amount" numeric NOT NULL,
	"set_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forecast_scenarios" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"assumptions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forecast_snapshots" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"scenario_id" text NOT NULL,
	"engine_version" integer NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"as_of_date" date NOT NULL,
	"starting_cash" numeric NOT NULL,
	"payload" jsonb NOT NULL,
	"detail" jsonb,
	"sync_run_id" text
);
--> statement-breakpoint
ALTER TABLE "account_balances" ADD CONSTRAINT "account_balances_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cash_overrides" ADD CONSTRAINT "cash_overrides_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forecast_scenarios" ADD CONSTRAINT "forecast_scenarios_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forecast_snapshots" ADD CONSTRAINT "forecast_snapshots_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forecast_snapshots" ADD CONSTRAINT "forecast_snapshots_scenario_id_forecast_scenarios_id_fk" FOREIGN KEY ("scenario_id") REFERENCES "public"."forecast_scenarios"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_balances_org_date_account_key" ON "account_balances" USING btree ("org_id","as_at_date","account_external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "forecast_scenarios_org_standard_key" ON "forecast_scenarios" USING btree ("org_id","kind") WHERE kind <> 'CUSTOM';--> statement-breakpoint
CREATE INDEX "forecast_scenarios_org_idx" ON "forecast_scenarios" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "forecast_snapshots_org_scenario_idx" ON "forecast_snapshots" USING btree ("org_id","scenario_id","computed_at");