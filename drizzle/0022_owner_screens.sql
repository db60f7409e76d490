ALTER TABLE "ledger_accounts" ADD COLUMN "include_in_burn" boolean;--> statement-breakpoint
ALTER TABLE "ledger_accounts" ADD COLUMN "pnl_position" text;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "runway_threshold" numeric;