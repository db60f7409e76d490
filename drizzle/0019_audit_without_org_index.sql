-- Audit rows are read by key only (the settings screen's audit trail of one key, newest first,
-- served by audit_events_key_at_idx). Nothing read them by organisation, yet every agent request
-- paid for this index on its audit row. An organisation-wide audit view would bring it back.
DROP INDEX "audit_events_org_at_idx";
