CREATE TABLE "api_key_org_revocations" (
	"key_id" text NOT NULL,
	"org_id" text NOT NULL,
	"revoked_at" timestamp with time zone NOT NULL,
	"revoked_by_user_id" text,
	CONSTRAINT "api_key_org_revocations_key_id_org_id_pk" PRIMARY KEY("key_id","org_id")
);
--> statement-breakpoint
CREATE TABLE "partner_owners" (
	"partner_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_owners_partner_id_user_id_pk" PRIMARY KEY("partner_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "partners" DROP CONSTRAINT "partners_owner_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "restrict_sensitive_to_org_keys" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_key_org_revocations" ADD CONSTRAINT "api_key_org_revocations_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_key_org_revocations" ADD CONSTRAINT "api_key_org_revocations_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_key_org_revocations" ADD CONSTRAINT "api_key_org_revocations_revoked_by_user_id_users_id_fk" FOREIGN KEY ("revoked_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_owners" ADD CONSTRAINT "partner_owners_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_owners" ADD CONSTRAINT "partner_owners_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "partner_owners_user_idx" ON "partner_owners" USING btree ("user_id");--> statement-breakpoint
-- Each partner's one partner user becomes its first owner.
INSERT INTO "partner_owners" ("partner_id", "user_id", "created_at")
  SELECT "id", "owner_user_id", "created_at" FROM "partners";--> statement-breakpoint
ALTER TABLE "partners" DROP COLUMN "owner_user_id";--> statement-breakpoint
-- A partner key is verified with whether its creator still owns its partner, and the verified-key
-- cache keeps that answer: adding or removing an owner moves the auth epoch in the same
-- transaction (as key and organisation changes do, drizzle/0011), so every instance drops it.
CREATE FUNCTION bump_partner_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_scope text := 'partner:' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.partner_id ELSE NEW.partner_id END);
BEGIN
  INSERT INTO auth_epoch AS e (id, epoch) VALUES (hashtext(v_scope), 1)
    ON CONFLICT (id) DO UPDATE SET epoch = e.epoch + 1;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER partner_owners_bump_auth_epoch
  AFTER INSERT OR UPDATE OR DELETE ON partner_owners
  FOR EACH ROW
  EXECUTE FUNCTION bump_partner_auth_epoch();--> statement-breakpoint
-- Reach is read on every request, so a revocation for one organisation applies at once without
-- it; the bump keeps any cache of a key's reach honest as well.
CREATE FUNCTION bump_key_org_revocation_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO auth_epoch AS e (id, epoch) VALUES (hashtext('key:' || NEW.key_id), 1)
    ON CONFLICT (id) DO UPDATE SET epoch = e.epoch + 1;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER api_key_org_revocations_bump_auth_epoch
  AFTER INSERT ON api_key_org_revocations
  FOR EACH ROW
  EXECUTE FUNCTION bump_key_org_revocation_auth_epoch();