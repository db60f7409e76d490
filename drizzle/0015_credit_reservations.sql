CREATE TABLE "credit_reservations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"billing_account_id" text NOT NULL,
	"org_id" text NOT NULL,
	"plan_credits" integer NOT NULL,
	"top_up_credits" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credit_windows" ADD COLUMN "reserved_plan" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_windows" ADD COLUMN "reserved_top_up" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_billing_account_id_billing_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."billing_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_reservations_window_idx" ON "credit_reservations" USING btree ("user_id","billing_account_id","expires_at");