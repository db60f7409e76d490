CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"family" text NOT NULL,
	"kind" text NOT NULL,
	"prefix" text NOT NULL,
	"secret_digest" text NOT NULL,
	"label" text NOT NULL,
	"scopes" text[] NOT NULL,
	"reach" text NOT NULL,
	"org_id" text,
	"partner_id" text,
	"pinned_org_ids" text[],
	"created_by_user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"last_sensitive_access_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"replaced_by_key_id" text
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"org_id" text,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"status" integer NOT NULL,
	"sensitive" boolean NOT NULL,
	"request_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"ledger_account_id" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"currency" text NOT NULL,
	"reconciled_balance" numeric DEFAULT '0' NOT NULL,
	"statement_balance" numeric DEFAULT '0' NOT NULL,
	"balance_source" text DEFAULT 'RECONCILED' NOT NULL,
	"balance_synced_at" timestamp with time zone,
	"is_active" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"external_id" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"bank_account_external_id" text NOT NULL,
	"contact_external_id" text,
	"contact_name" text,
	"date" date NOT NULL,
	"reference" text,
	"currency" text NOT NULL,
	"sub_total" numeric,
	"total_tax" numeric,
	"total" numeric NOT NULL,
	"is_reconciled" boolean DEFAULT false NOT NULL,
	"account_code" text,
	"ledger_updated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cash_item_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"cash_item_id" text NOT NULL,
	"line_number" integer NOT NULL,
	"external_id" text,
	"description" text,
	"quantity" numeric,
	"unit_amount" numeric,
	"item_code" text,
	"account_code" text,
	"account_external_id" text,
	"tax_type" text,
	"tax_amount" numeric DEFAULT '0' NOT NULL,
	"line_amount" numeric NOT NULL,
	"discount_rate" numeric,
	"discount_amount" numeric
);
--> statement-breakpoint
CREATE TABLE "cash_items" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"source" text NOT NULL,
	"external_id" text,
	"invoice_number" text,
	"reference" text,
	"contact_external_id" text,
	"contact_name" text,
	"status" text NOT NULL,
	"ledger_status" text,
	"line_amount_types" text,
	"currency" text NOT NULL,
	"currency_rate" numeric,
	"sub_total" numeric,
	"total_tax" numeric,
	"amount" numeric NOT NULL,
	"amount_due" numeric,
	"amount_paid" numeric,
	"amount_credited" numeric,
	"issue_date" date,
	"due_date" date,
	"expected_date" date NOT NULL,
	"actual_date" date,
	"document_date" date GENERATED ALWAYS AS (coalesce(issue_date, due_date)) STORED,
	"category" text,
	"probability" numeric,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"first_name" text,
	"last_name" text,
	"email" text,
	"contact_number" text,
	"account_number" text,
	"contact_status" text DEFAULT 'ACTIVE' NOT NULL,
	"is_customer" boolean DEFAULT false NOT NULL,
	"is_supplier" boolean DEFAULT false NOT NULL,
	"is_sensitive" boolean DEFAULT false NOT NULL,
	"default_currency" text,
	"merged_to_contact_id" text,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_note_allocations" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"credit_note_id" text NOT NULL,
	"external_id" text,
	"invoice_external_id" text,
	"invoice_number" text,
	"amount" numeric NOT NULL,
	"date" date
);
--> statement-breakpoint
CREATE TABLE "credit_note_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"credit_note_id" text NOT NULL,
	"line_number" integer NOT NULL,
	"external_id" text,
	"description" text,
	"quantity" numeric,
	"unit_amount" numeric,
	"item_code" text,
	"account_code" text,
	"tax_type" text,
	"tax_amount" numeric,
	"line_amount" numeric
);
--> statement-breakpoint
CREATE TABLE "credit_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"external_id" text NOT NULL,
	"type" text NOT NULL,
	"credit_note_number" text,
	"reference" text,
	"contact_external_id" text,
	"contact_name" text,
	"issue_date" date,
	"due_date" date,
	"status" text NOT NULL,
	"ledger_status" text NOT NULL,
	"line_amount_types" text,
	"sub_total" numeric,
	"total_tax" numeric,
	"total" numeric NOT NULL,
	"remaining_credit" numeric NOT NULL,
	"currency" text NOT NULL,
	"currency_rate" numeric,
	"fully_paid_on_date" date,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"external_id" text NOT NULL,
	"code" text,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"class" text,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"system_account" text,
	"reporting_code" text,
	"bank_account_type" text,
	"bank_account_number" text,
	"currency" text,
	"tax_type" text,
	"is_sensitive" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ledger_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"provider" text NOT NULL,
	"source_ref" text,
	"status" text DEFAULT 'active' NOT NULL,
	"last_successful_sync_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"external_id" text NOT NULL,
	"payment_type" text,
	"status" text NOT NULL,
	"invoice_external_id" text,
	"credit_note_external_id" text,
	"bank_account_external_id" text,
	"date" date NOT NULL,
	"amount" numeric NOT NULL,
	"bank_amount" numeric,
	"currency_rate" numeric,
	"reference" text,
	"is_reconciled" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "purchase_order_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"purchase_order_id" text NOT NULL,
	"line_number" integer NOT NULL,
	"external_id" text,
	"description" text,
	"quantity" numeric,
	"unit_amount" numeric,
	"item_code" text,
	"account_code" text,
	"tax_type" text,
	"tax_amount" numeric,
	"line_amount" numeric
);
--> statement-breakpoint
CREATE TABLE "purchase_orders" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"external_id" text NOT NULL,
	"purchase_order_number" text,
	"reference" text,
	"contact_external_id" text,
	"contact_name" text,
	"status" text NOT NULL,
	"issue_date" date,
	"delivery_date" date,
	"expected_arrival_date" date,
	"line_amount_types" text,
	"sub_total" numeric,
	"total_tax" numeric,
	"total" numeric NOT NULL,
	"currency" text NOT NULL,
	"currency_rate" numeric,
	"suppressed_reason" text,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sync_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"connection_id" text,
	"source" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" text NOT NULL,
	"counts" jsonb,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "billing_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"owner_user_id" text NOT NULL,
	"plan" text NOT NULL,
	"subscription_status" text NOT NULL,
	"trial_ends_at" timestamp with time zone,
	"auto_top_up" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_org_id_user_id_pk" PRIMARY KEY("org_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "organisations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"base_currency" text DEFAULT 'AUD' NOT NULL,
	"timezone" text DEFAULT 'Australia/Sydney' NOT NULL,
	"financial_year_end_month" integer DEFAULT 6 NOT NULL,
	"financial_year_end_day" integer DEFAULT 30 NOT NULL,
	"billing_account_id" text,
	"ledger_organisation_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_links" (
	"partner_id" text NOT NULL,
	"org_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_links_partner_id_org_id_pk" PRIMARY KEY("partner_id","org_id")
);
--> statement-breakpoint
CREATE TABLE "partners" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"owner_user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "seats" (
	"billing_account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"plan" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "seats_billing_account_id_user_id_pk" PRIMARY KEY("billing_account_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"password_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_ledger_account_id_ledger_accounts_id_fk" FOREIGN KEY ("ledger_account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cash_item_lines" ADD CONSTRAINT "cash_item_lines_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cash_item_lines" ADD CONSTRAINT "cash_item_lines_cash_item_id_cash_items_id_fk" FOREIGN KEY ("cash_item_id") REFERENCES "public"."cash_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cash_items" ADD CONSTRAINT "cash_items_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_note_allocations" ADD CONSTRAINT "credit_note_allocations_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_note_allocations" ADD CONSTRAINT "credit_note_allocations_credit_note_id_credit_notes_id_fk" FOREIGN KEY ("credit_note_id") REFERENCES "public"."credit_notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD CONSTRAINT "credit_note_lines_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_note_lines" ADD CONSTRAINT "credit_note_lines_credit_note_id_credit_notes_id_fk" FOREIGN KEY ("credit_note_id") REFERENCES "public"."credit_notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_accounts" ADD CONSTRAINT "ledger_accounts_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_connections" ADD CONSTRAINT "ledger_connections_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_order_lines" ADD CONSTRAINT "purchase_order_lines_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_order_lines" ADD CONSTRAINT "purchase_order_lines_purchase_order_id_purchase_orders_id_fk" FOREIGN KEY ("purchase_order_id") REFERENCES "public"."purchase_orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_orders" ADD CONSTRAINT "purchase_orders_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_connection_id_ledger_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."ledger_connections"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organisations" ADD CONSTRAINT "organisations_billing_account_id_billing_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."billing_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_links" ADD CONSTRAINT "partner_links_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_links" ADD CONSTRAINT "partner_links_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partners" ADD CONSTRAINT "partners_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seats" ADD CONSTRAINT "seats_billing_account_id_billing_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."billing_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seats" ADD CONSTRAINT "seats_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "api_keys_partner_idx" ON "api_keys" USING btree ("partner_id");--> statement-breakpoint
CREATE INDEX "api_keys_creator_idx" ON "api_keys" USING btree ("created_by_user_id");--> statement-breakpoint
CREATE INDEX "audit_events_key_at_idx" ON "audit_events" USING btree ("key_id","at");--> statement-breakpoint
CREATE INDEX "audit_events_org_at_idx" ON "audit_events" USING btree ("org_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_accounts_org_ext_key" ON "bank_accounts" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "bank_accounts_org_name_idx" ON "bank_accounts" USING btree ("org_id","name","id");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_transactions_org_ext_key" ON "bank_transactions" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "bank_transactions_org_date_idx" ON "bank_transactions" USING btree ("org_id","date");--> statement-breakpoint
CREATE INDEX "cash_item_lines_org_item_idx" ON "cash_item_lines" USING btree ("org_id","cash_item_id","line_number");--> statement-breakpoint
CREATE UNIQUE INDEX "cash_items_org_source_ext_key" ON "cash_items" USING btree ("org_id","source","external_id");--> statement-breakpoint
CREATE INDEX "cash_items_org_source_date_idx" ON "cash_items" USING btree ("org_id","source","document_date","id");--> statement-breakpoint
CREATE INDEX "cash_items_org_contact_idx" ON "cash_items" USING btree ("org_id","contact_external_id","source");--> statement-breakpoint
CREATE INDEX "cash_items_org_status_expected_idx" ON "cash_items" USING btree ("org_id","status","expected_date");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_org_ext_key" ON "contacts" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "contacts_org_synced_idx" ON "contacts" USING btree ("org_id","last_synced_at","id");--> statement-breakpoint
CREATE INDEX "credit_note_allocations_org_cn_idx" ON "credit_note_allocations" USING btree ("org_id","credit_note_id");--> statement-breakpoint
CREATE INDEX "credit_note_lines_org_cn_idx" ON "credit_note_lines" USING btree ("org_id","credit_note_id","line_number");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_org_ext_key" ON "credit_notes" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "credit_notes_org_type_date_idx" ON "credit_notes" USING btree ("org_id","type","issue_date","id");--> statement-breakpoint
CREATE INDEX "credit_notes_org_contact_idx" ON "credit_notes" USING btree ("org_id","contact_external_id");--> statement-breakpoint
CREATE INDEX "credit_notes_org_number_idx" ON "credit_notes" USING btree ("org_id","credit_note_number");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_accounts_org_ext_key" ON "ledger_accounts" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "ledger_accounts_org_code_idx" ON "ledger_accounts" USING btree ("org_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_connections_org_key" ON "ledger_connections" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_org_ext_key" ON "payments" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "payments_org_invoice_idx" ON "payments" USING btree ("org_id","invoice_external_id");--> statement-breakpoint
CREATE INDEX "payments_org_date_idx" ON "payments" USING btree ("org_id","date");--> statement-breakpoint
CREATE INDEX "purchase_order_lines_org_po_idx" ON "purchase_order_lines" USING btree ("org_id","purchase_order_id","line_number");--> statement-breakpoint
CREATE UNIQUE INDEX "purchase_orders_org_ext_key" ON "purchase_orders" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "purchase_orders_org_date_idx" ON "purchase_orders" USING btree ("org_id","issue_date","id");--> statement-breakpoint
CREATE INDEX "purchase_orders_org_contact_idx" ON "purchase_orders" USING btree ("org_id","contact_external_id");--> statement-breakpoint
CREATE INDEX "sync_runs_org_started_idx" ON "sync_runs" USING btree ("org_id","started_at");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "partner_links_org_idx" ON "partner_links" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "seats_user_idx" ON "seats" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree (lower("email"));