CREATE TABLE "forecast_predictions" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"predictions" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forecast_snapshots" ADD COLUMN "predictions_id" text;--> statement-breakpoint
ALTER TABLE "forecast_predictions" ADD CONSTRAINT "forecast_predictions_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "forecast_predictions_org_idx" ON "forecast_predictions" USING btree ("org_id","computed_at");--> statement-breakpoint
ALTER TABLE "forecast_snapshots" ADD CONSTRAINT "forecast_snapshots_predictions_id_forecast_predictions_id_fk" FOREIGN KEY ("predictions_id") REFERENCES "public"."forecast_predictions"("id") ON DELETE no action ON UPDATE no action;