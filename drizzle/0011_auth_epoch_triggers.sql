-- The verified-key cache (src/services/keys/verified-key-cache.ts) keeps verified keys, with an
-- organisation key's organisation, in process memory and polls the sum of auth_epoch. Every change
-- to what it holds adds one to a row in the same transaction, so whoever writes it (this server,
-- the CLI, another instance) invalidates every instance's cache once the change commits.
-- One row per changed key or organisation (id = hashtext('key:<id>' | 'org:<id>'); a collision
-- merely shares a row), not one row for everything: a bump locks its row until the writing
-- transaction commits, and an import that renames its organisation runs for minutes.
INSERT INTO "auth_epoch" ("id", "epoch") VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION bump_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_scope text := TG_ARGV[0] || ':' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
BEGIN
  INSERT INTO auth_epoch AS e (id, epoch) VALUES (hashtext(v_scope), 1)
    ON CONFLICT (id) DO UPDATE SET epoch = e.epoch + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Any change to a key except its last-used stamps (the audit writer updates those constantly).
CREATE TRIGGER api_keys_bump_auth_epoch
  AFTER UPDATE ON api_keys
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_used_at' - 'last_sensitive_access_at')
        IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at' - 'last_sensitive_access_at'))
  EXECUTE FUNCTION bump_auth_epoch('key');
--> statement-breakpoint
CREATE TRIGGER api_keys_delete_bump_auth_epoch
  AFTER DELETE ON api_keys
  FOR EACH ROW
  EXECUTE FUNCTION bump_auth_epoch('key');
--> statement-breakpoint
CREATE TRIGGER organisations_bump_auth_epoch
  AFTER UPDATE ON organisations
  FOR EACH ROW
  WHEN ((OLD.name, OLD.base_currency, OLD.timezone, OLD.financial_year_end_month,
         OLD.financial_year_end_day, OLD.billing_account_id)
        IS DISTINCT FROM
        (NEW.name, NEW.base_currency, NEW.timezone, NEW.financial_year_end_month,
         NEW.financial_year_end_day, NEW.billing_account_id))
  EXECUTE FUNCTION bump_auth_epoch('org');
--> statement-breakpoint
CREATE TRIGGER organisations_delete_bump_auth_epoch
  AFTER DELETE ON organisations
  FOR EACH ROW
  EXECUTE FUNCTION bump_auth_epoch('org');
