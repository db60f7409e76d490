ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_key_id_api_keys_id_fk";
--> statement-breakpoint
ALTER TABLE "credit_uses" DROP CONSTRAINT "credit_uses_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "credit_uses" DROP CONSTRAINT "credit_uses_billing_account_id_billing_accounts_id_fk";
--> statement-breakpoint
-- The foreign keys above checked, on every audit row and every credit use, a key, user or billing
-- account that the request had just authenticated or that admission had just read under the
-- window row's lock (and keys, users and billing accounts are never deleted). Measured on the
-- bank-accounts benchmark (pg_stat_statements, PostgreSQL 15): a settlement's INSERT spent 17.6
-- µs per row with them and 7.8 without; the audit batch 16.6 and 11.4 (docs/benchmarks.md).
--
-- metering_settle_columns: metering_settle (0017) with the same decisions and order, taking the
-- uses as one array per column instead of a jsonb array of objects (no per-row jsonb lookups or
-- text-to-timestamp parsing in the function), and answering their ids as one array in the
-- uses' order instead of a row per use. metering_settle stays for the previous release.
CREATE FUNCTION metering_settle_columns(
  p_reservation bigint, p_user text, p_account text, p_org text,
  p_keys text[], p_routes text[], p_requests text[], p_sources text[], p_ats timestamptz[],
  p_done boolean
) RETURNS bigint[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  w_cutoff timestamptz;
  r record;
  v_n integer;
  v_plan integer;
  v_plan_counted integer;
  v_top integer;
  v_ids bigint[];
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  v_n := coalesce(cardinality(p_ats), 0);
  IF coalesce(cardinality(p_keys), 0) <> v_n OR coalesce(cardinality(p_routes), 0) <> v_n
     OR coalesce(cardinality(p_requests), 0) <> v_n OR coalesce(cardinality(p_sources), 0) <> v_n
  THEN
    RAISE EXCEPTION 'metering_settle_columns: column arrays of different lengths';
  END IF;
  -- The rows before the window lock, as 0017 does (see there).
  IF v_n > 0 THEN
    SELECT array_agg(nextval('credit_uses_id_seq'::regclass)) INTO v_ids
      FROM generate_series(1, v_n);
    INSERT INTO credit_uses (id, user_id, billing_account_id, org_id, key_id, route, request_id,
                             source, at)
      SELECT v_ids[u.ord], p_user, p_account, p_org, u.k, u.r, u.q, u.s, u.t
        FROM unnest(p_keys, p_routes, p_requests, p_sources, p_ats)
             WITH ORDINALITY AS u(k, r, q, s, t, ord);
  END IF;
  SELECT cw.cutoff INTO w_cutoff FROM credit_windows cw
    WHERE cw.user_id = p_user AND cw.billing_account_id = p_account
    FOR UPDATE;
  SELECT (count(*) FILTER (WHERE u.s = 'plan'))::integer,
         (count(*) FILTER (WHERE u.s = 'plan' AND u.t > w_cutoff))::integer,
         (count(*) FILTER (WHERE u.s = 'top_up'))::integer
    INTO v_plan, v_plan_counted, v_top
    FROM unnest(p_sources, p_ats) AS u(s, t);
  IF v_n > 0 THEN
    INSERT INTO daily_quota_usage AS q (org_id, day, used)
      SELECT p_org, (u.t AT TIME ZONE 'UTC')::date, count(*)::integer
        FROM unnest(p_ats) AS u(t)
        GROUP BY 2
      ON CONFLICT (org_id, day) DO UPDATE SET used = q.used + excluded.used;
  END IF;

  SELECT * INTO r FROM credit_reservations cr WHERE cr.id = p_reservation FOR UPDATE;
  IF FOUND THEN
    UPDATE credit_windows cw SET
        used = cw.used + v_plan_counted,
        top_up_credits = cw.top_up_credits - v_top,
        reserved_plan = cw.reserved_plan - CASE WHEN p_done THEN r.plan_credits ELSE v_plan END,
        reserved_top_up = cw.reserved_top_up
                          - CASE WHEN p_done THEN r.top_up_credits ELSE v_top END
      WHERE cw.user_id = p_user AND cw.billing_account_id = p_account;
    IF p_done THEN
      DELETE FROM credit_reservations cr WHERE cr.id = p_reservation;
    ELSE
      UPDATE credit_reservations cr SET plan_credits = cr.plan_credits - v_plan,
                                        top_up_credits = cr.top_up_credits - v_top
        WHERE cr.id = p_reservation;
    END IF;
  ELSIF v_n > 0 THEN
    UPDATE credit_windows cw SET used = cw.used + v_plan_counted,
                                 top_up_credits = cw.top_up_credits - v_top
      WHERE cw.user_id = p_user AND cw.billing_account_id = p_account;
  END IF;

  RETURN coalesce(v_ids, '{}'::bigint[]);
END $$;
