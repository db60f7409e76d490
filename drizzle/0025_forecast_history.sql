CREATE TABLE "forecast_history" (
	"org_id" text NOT NULL,
	"as_of_date" date NOT NULL,
	"scenario_id" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"starting_cash" numeric NOT NULL,
	"weeks" jsonb NOT NULL,
	CONSTRAINT "forecast_history_org_id_as_of_date_pk" PRIMARY KEY("org_id","as_of_date")
);
--> statement-breakpoint
ALTER TABLE "forecast_history" ADD CONSTRAINT "forecast_history_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;