-- The verified-key cache (src/services/keys/verified-key-cache.ts) keeps verified keys, with an
-- organisation key's organisation, in process memory and polls auth_epoch. Every change to what
-- it holds bumps the epoch in the same transaction, so whoever writes it (this server, the CLI,
-- another instance) invalidates every instance's cache once the change commits.
INSERT INTO "auth_epoch" ("id", "epoch") VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION bump_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Any change to a key except its last-used stamps (the audit writer updates those constantly).
CREATE TRIGGER api_keys_bump_auth_epoch
  AFTER UPDATE ON api_keys
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_used_at' - 'last_sensitive_access_at')
        IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at' - 'last_sensitive_access_at'))
  EXECUTE FUNCTION bump_auth_epoch();
--> statement-breakpoint
CREATE TRIGGER api_keys_delete_bump_auth_epoch
  AFTER DELETE ON api_keys
  FOR EACH STATEMENT
  EXECUTE FUNCTION bump_auth_epoch();
--> statement-breakpoint
-- The organisation fields read with an organisation key (OrgRef), when they change.
CREATE TRIGGER organisations_bump_auth_epoch
  AFTER UPDATE ON organisations
  FOR EACH ROW
  WHEN ((OLD.name, OLD.base_currency, OLD.timezone, OLD.financial_year_end_month,
         OLD.financial_year_end_day, OLD.billing_account_id)
        IS DISTINCT FROM
        (NEW.name, NEW.base_currency, NEW.timezone, NEW.financial_year_end_month,
         NEW.financial_year_end_day, NEW.billing_account_id))
  EXECUTE FUNCTION bump_auth_epoch();
--> statement-breakpoint
CREATE TRIGGER organisations_delete_bump_auth_epoch
  AFTER DELETE ON organisations
  FOR EACH STATEMENT
  EXECUTE FUNCTION bump_auth_epoch();
