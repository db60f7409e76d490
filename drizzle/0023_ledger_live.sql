CREATE TABLE "ledger_authorizations" (
	"state_digest" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text,
	"session_digest" text NOT NULL,
	"code_verifier_sealed" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"tokens_sealed" text,
	"tenants" jsonb,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_credentials" (
	"connection_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"tenant_name" text,
	"ledger_connection_id" text,
	"access_token_sealed" text NOT NULL,
	"access_expires_at" timestamp with time zone NOT NULL,
	"refresh_token_sealed" text NOT NULL,
	"scope" text,
	"refreshed_at" timestamp with time zone,
	"last_full_sync_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_watermarks" (
	"org_id" text NOT NULL,
	"resource" text NOT NULL,
	"watermark" timestamp with time zone NOT NULL,
	CONSTRAINT "ledger_watermarks_org_id_resource_pk" PRIMARY KEY("org_id","resource")
);
--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "ledger_calls" integer;--> statement-breakpoint
ALTER TABLE "ledger_authorizations" ADD CONSTRAINT "ledger_authorizations_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_authorizations" ADD CONSTRAINT "ledger_authorizations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_credentials" ADD CONSTRAINT "ledger_credentials_connection_id_ledger_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."ledger_connections"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_credentials" ADD CONSTRAINT "ledger_credentials_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_watermarks" ADD CONSTRAINT "ledger_watermarks_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_credentials_tenant_key" ON "ledger_credentials" USING btree ("tenant_id");