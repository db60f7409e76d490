-- The data epoch (drizzle/0014_org_data_epoch_triggers.sql) also moves with every write to the
-- other tables the forecast loader reads (src/services/forecast/load-forecast-input.ts), so
-- that an epoch names the books the forecast is computed from: the recompute keeps the loaded
-- books per (organisation, epoch) and reloads when another writer, on any instance, moved it
-- (docs/adr/0008-forecast-books-kept-per-data-epoch.md). Same trigger function, same rules.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['payments', 'credit_note_allocations', 'purchase_order_lines',
                           'bank_transactions', 'ledger_accounts'] LOOP
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
