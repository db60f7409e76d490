ALTER TABLE "cash_items" ADD COLUMN "sync_hash" text;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "sync_hash" text;--> statement-breakpoint
ALTER TABLE "purchase_orders" ADD COLUMN "sync_hash" text;