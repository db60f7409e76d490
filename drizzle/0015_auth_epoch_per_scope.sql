-- One auth_epoch row per changed key or organisation instead of one row for everything: a bump
-- locks its row until the writing transaction commits, and an import updates its organisation's
-- settings early in a transaction that can last minutes, which held every key revocation of
-- every organisation behind it. Rows are keyed by hashtext('key:<id>' | 'org:<id>') (a collision
-- merely shares a row); the cache polls sum(epoch), which grows by one with every committed bump.
CREATE OR REPLACE FUNCTION bump_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_scope text := TG_ARGV[0] || ':' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
BEGIN
  INSERT INTO auth_epoch AS e (id, epoch) VALUES (hashtext(v_scope), 1)
    ON CONFLICT (id) DO UPDATE SET epoch = e.epoch + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER api_keys_bump_auth_epoch ON api_keys;
--> statement-breakpoint
DROP TRIGGER api_keys_delete_bump_auth_epoch ON api_keys;
--> statement-breakpoint
DROP TRIGGER organisations_bump_auth_epoch ON organisations;
--> statement-breakpoint
DROP TRIGGER organisations_delete_bump_auth_epoch ON organisations;
--> statement-breakpoint
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
