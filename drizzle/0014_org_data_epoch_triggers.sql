-- Data epochs (src/db/schema/ledger.ts, orgDataEpochs): every statement that inserts, updates or
-- deletes rows of the listed tables bumps the epoch of each organisation it touched, in its own
-- transaction, so a count cached at an epoch is never served once the rows it counted changed.
-- Statement-level with transition tables: one bump per organisation per statement, however many
-- rows the statement wrote (an import writes thousands per statement).
CREATE FUNCTION bump_org_data_epochs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO org_data_epochs AS e (org_id, epoch)
      SELECT DISTINCT o.org_id, 1 FROM old_rows o
      ON CONFLICT (org_id) DO UPDATE SET epoch = e.epoch + 1;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO org_data_epochs AS e (org_id, epoch)
      SELECT org_id, 1 FROM (SELECT n.org_id FROM new_rows n UNION SELECT o.org_id FROM old_rows o) t
      ON CONFLICT (org_id) DO UPDATE SET epoch = e.epoch + 1;
  ELSE
    INSERT INTO org_data_epochs AS e (org_id, epoch)
      SELECT DISTINCT n.org_id, 1 FROM new_rows n
      ON CONFLICT (org_id) DO UPDATE SET epoch = e.epoch + 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['cash_items', 'credit_notes', 'purchase_orders', 'contacts'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
                   'FOR EACH STATEMENT EXECUTE FUNCTION bump_org_data_epochs()',
                   t || '_insert_bump_data_epoch', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows '
                   'NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_org_data_epochs()',
                   t || '_update_bump_data_epoch', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
                   'FOR EACH STATEMENT EXECUTE FUNCTION bump_org_data_epochs()',
                   t || '_delete_bump_data_epoch', t);
  END LOOP;
END $$;
