CREATE TABLE "ledger_call_slots" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "progress" jsonb;--> statement-breakpoint
ALTER TABLE "ledger_credentials" ADD COLUMN "retry_reason" text;--> statement-breakpoint
CREATE INDEX "ledger_call_slots_tenant_started_idx" ON "ledger_call_slots" USING btree ("tenant_id","started_at");--> statement-breakpoint
CREATE INDEX "ledger_credentials_org_idx" ON "ledger_credentials" USING btree ("org_id");