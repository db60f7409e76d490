DROP TABLE "credit_reservations" CASCADE;--> statement-breakpoint
ALTER TABLE "credit_windows" DROP COLUMN "reserved_plan";--> statement-breakpoint
ALTER TABLE "credit_windows" DROP COLUMN "reserved_top_up";--> statement-breakpoint
-- Credit reservations are gone (docs/metering.md): their table and columns above, and the
-- functions only they, or the single-call admission replaced by metering_admit_batch, used.
DROP FUNCTION IF EXISTS metering_settle_columns(bigint, text, text, text, text[], text[], text[], text[], timestamptz[], boolean);--> statement-breakpoint
DROP FUNCTION IF EXISTS metering_settle(bigint, text, text, text, jsonb, boolean);--> statement-breakpoint
DROP FUNCTION IF EXISTS metering_reserve(text, text, timestamptz, timestamptz, date, jsonb, integer, integer, integer);--> statement-breakpoint
DROP FUNCTION IF EXISTS metering_reap_reservations(text, text);--> statement-breakpoint
DROP FUNCTION IF EXISTS metering_admit(text, text, text, text, text, timestamptz, timestamptz, date, jsonb, jsonb);--> statement-breakpoint
-- The query-credit functions in their one current form: what makes admission exact across any
-- number of instances (docs/metering.md). Installed by drizzle/0021_metering_final_functions.sql,
-- which ends with this file verbatim (test/integration/metering-functions.test.ts checks it); a
-- change here is a new migration ending with the changed file.
--
-- metering_admit_batch and metering_refund are each called as one autocommit statement, so the
-- row lock on credit_windows is held until that statement commits: concurrent admissions for one
-- (user, billing account), from any instance, queue on it. Every statement of a VOLATILE plpgsql
-- function takes a fresh snapshot, so once the lock is granted the counts see everything the
-- previous holder committed. Invariant kept by every writer, under the lock:
-- credit_windows.used = number of plan uses with at > cutoff.
--
-- What one metered request needs to know about billing, in one row (always exactly one): the
-- organisation's billing account, the user's seat on it, and the ledger connection (with the last
-- successful sync, read only when the connection needs attention).
CREATE OR REPLACE FUNCTION metering_billing(p_user text, p_org text) RETURNS TABLE (
  account text, plan text, status text, trial_ends_ms float8, auto_top_up boolean,
  seat_plan text, ledger_status text, last_sync_ms float8
) LANGUAGE sql STABLE AS $$
  SELECT ba.id, ba.plan, ba.subscription_status,
         (extract(epoch FROM ba.trial_ends_at) * 1000)::float8, ba.auto_top_up,
         s.plan, lc.status,
         CASE WHEN lc.status IS DISTINCT FROM 'active' THEN (extract(epoch FROM coalesce(
           (SELECT max(sr.finished_at) FROM sync_runs sr
             WHERE sr.org_id = p_org AND sr.outcome = 'succeeded'),
           lc.last_successful_sync_at)) * 1000)::float8 END
  FROM (SELECT 1) AS one
  LEFT JOIN organisations o ON o.id = p_org
  LEFT JOIN billing_accounts ba ON ba.id = o.billing_account_id
  LEFT JOIN seats s ON s.billing_account_id = o.billing_account_id AND s.user_id = p_user
  LEFT JOIN ledger_connections lc ON lc.org_id = p_org
$$;
--> statement-breakpoint
-- Admits a batch of calls of one (user, organisation) in order, in one statement: reads billing
-- (metering_billing); without a billing account or a seat every item answers 'no_account' or
-- 'no_seat'; else locks the window, brings its count up to each item's own cutoff, decides each
-- item (plan, top_up, buy_pack or refuse), records the uses and the daily bucket, and returns a
-- row per item. p_allowance and p_packs map plan names to credits; p_items is a jsonb array of
-- {key, route, request, at}. Uses are written by one INSERT (ids drawn from the sequence first,
-- so each item has its own refund handle); moving the cutoff counts aged-out uses only when an
-- item's cutoff passes the oldest counted use.
CREATE OR REPLACE FUNCTION metering_admit_batch(
  p_user text, p_org text, p_cutoff timestamptz, p_day date, p_allowance jsonb, p_packs jsonb,
  p_items jsonb
) RETURNS TABLE (
  r_ord integer, r_decision text, r_use_id bigint, r_used integer, r_top_up integer,
  r_frees_at_ms float8, r_newest_at_ms float8, r_quota_used integer,
  r_account text, r_plan text, r_status text, r_trial_ends_ms float8, r_auto_top_up boolean,
  r_seat_plan text, r_ledger_status text, r_last_sync_ms float8
) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  b record;
  v_account text;
  v_limit integer;
  v_pack integer;
  w_used integer;
  w_cutoff timestamptz;
  w_top_up integer;
  v_now timestamptz;
  v_n integer;
  v_ats timestamptz[];
  v_keys text[];
  v_routes text[];
  v_requests text[];
  v_window interval;
  v_cut timestamptz;
  v_oldest timestamptz;
  v_decision text;
  v_admitted integer := 0;
  v_quota integer;
  v_frees float8;
  v_newest float8;
  v_ids bigint[];
  v_batch_plan timestamptz[] := '{}';
  i integer;
  ins_item integer[] := '{}';
  ins_source text[] := '{}';
  d_decision text[] := '{}';
  d_use bigint[] := '{}';
  d_used integer[] := '{}';
  d_top_up integer[] := '{}';
  d_admitted integer[] := '{}';
BEGIN
  -- Asynchronous commit for this transaction only: the lock below is released without waiting
  -- for the WAL flush, which triples how fast one (user, billing account) can be admitted. Other
  -- sessions still see the commit at once (exactness holds); a PostgreSQL crash can lose the
  -- last fraction of a second of uses, consistently (uses, top-up balance and its billing event
  -- together), in the customer's favour. docs/metering.md.
  PERFORM set_config('synchronous_commit', 'off', true);

  SELECT * INTO b FROM metering_billing(p_user, p_org);
  IF b.account IS NULL OR b.seat_plan IS NULL THEN
    v_quota := coalesce((SELECT q.used FROM daily_quota_usage q
                          WHERE q.org_id = p_org AND q.day = p_day), 0);
    RETURN QUERY SELECT
      e.ord::integer,
      CASE WHEN b.account IS NULL THEN 'no_account' ELSE 'no_seat' END,
      NULL::bigint, NULL::integer, NULL::integer, NULL::float8, NULL::float8, v_quota,
      b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up, b.seat_plan,
      b.ledger_status, b.last_sync_ms
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(item, ord)
    ORDER BY e.ord;
    RETURN;
  END IF;
  v_account := b.account;
  v_limit := (p_allowance ->> b.seat_plan)::integer;
  v_pack := CASE WHEN b.auto_top_up AND b.status = 'active'
                 THEN coalesce((p_packs ->> b.seat_plan)::integer, 0) ELSE 0 END;

  SELECT cw.used, cw.cutoff, cw.top_up_credits
    INTO w_used, w_cutoff, w_top_up
    FROM credit_windows cw
    WHERE cw.user_id = p_user AND cw.billing_account_id = v_account
    FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO credit_windows AS cw (user_id, billing_account_id, used, cutoff, top_up_credits)
      SELECT p_user, v_account, count(*)::integer, p_cutoff, 0
        FROM credit_uses u
        WHERE u.user_id = p_user AND u.billing_account_id = v_account
          AND u.source = 'plan' AND u.at > p_cutoff
      ON CONFLICT DO NOTHING;
    SELECT cw.used, cw.cutoff, cw.top_up_credits
      INTO w_used, w_cutoff, w_top_up
      FROM credit_windows cw
      WHERE cw.user_id = p_user AND cw.billing_account_id = v_account
      FOR UPDATE;
  END IF;

  SELECT array_agg((e.item ->> 'at')::timestamptz ORDER BY e.ord),
         array_agg(e.item ->> 'key' ORDER BY e.ord),
         array_agg(e.item ->> 'route' ORDER BY e.ord),
         array_agg(e.item ->> 'request' ORDER BY e.ord)
    INTO v_ats, v_keys, v_routes, v_requests
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(item, ord);
  v_n := coalesce(array_length(v_ats, 1), 0);
  -- The window's length: p_cutoff is the latest item's instant minus the window.
  v_now := (SELECT max(a) FROM unnest(v_ats) AS a);
  v_window := v_now - p_cutoff;

  -- The oldest plan use the window still counts: an item's cutoff that does not reach it ages
  -- nothing out, so no count is needed.
  v_oldest := (SELECT min(u.at) FROM credit_uses u
    WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
      AND u.at > w_cutoff);

  FOR i IN 1 .. v_n LOOP
    -- Each item against its own window (its instant - 5 h), exactly as a call alone would be.
    v_cut := v_ats[i] - v_window;
    IF v_cut > w_cutoff THEN
      IF v_oldest IS NOT NULL AND v_oldest <= v_cut THEN
        w_used := w_used
          - (SELECT count(*)::integer FROM credit_uses u
              WHERE u.user_id = p_user AND u.billing_account_id = v_account
                AND u.source = 'plan' AND u.at > w_cutoff AND u.at <= v_cut)
          - (SELECT count(*)::integer FROM unnest(v_batch_plan) AS a
              WHERE a > w_cutoff AND a <= v_cut);
        v_oldest := least(
          (SELECT min(u.at) FROM credit_uses u
            WHERE u.user_id = p_user AND u.billing_account_id = v_account
              AND u.source = 'plan' AND u.at > v_cut),
          (SELECT min(a) FROM unnest(v_batch_plan) AS a WHERE a > v_cut));
      END IF;
      w_cutoff := v_cut;
    ELSIF v_cut < w_cutoff THEN
      w_used := w_used
        + (SELECT count(*)::integer FROM credit_uses u
            WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
              AND u.at > v_cut AND u.at <= w_cutoff)
        + (SELECT count(*)::integer FROM unnest(v_batch_plan) AS a
            WHERE a > v_cut AND a <= w_cutoff);
      w_cutoff := v_cut;
      v_oldest := least(
        (SELECT min(u.at) FROM credit_uses u
          WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
            AND u.at > w_cutoff),
        (SELECT min(a) FROM unnest(v_batch_plan) AS a WHERE a > w_cutoff));
    END IF;
    -- The credit rule: a plan credit while the window has one, else a prepaid top-up credit,
    -- else a pack bought (automatic top-up on an active paid plan), else refused.
    IF w_used < v_limit THEN
      v_decision := 'plan';
      w_used := w_used + 1;
      -- This batch's uses are written after the loop; until then the window's moves count
      -- them from v_batch_plan, as they would count the rows.
      v_batch_plan := array_append(v_batch_plan, v_ats[i]);
      v_oldest := least(v_oldest, v_ats[i]);
    ELSIF w_top_up > 0 THEN
      v_decision := 'top_up';
      w_top_up := w_top_up - 1;
    ELSIF v_pack > 0 THEN
      v_decision := 'buy_pack';
      w_top_up := w_top_up + v_pack - 1;
      INSERT INTO billing_events (billing_account_id, kind, user_id, org_id, credits, details, at)
        VALUES (v_account, 'top_up', p_user, p_org, v_pack,
                jsonb_build_object('plan', b.seat_plan, 'requestId', v_requests[i]), v_ats[i]);
    ELSE
      v_decision := 'refuse';
    END IF;
    IF v_decision IN ('plan', 'top_up', 'buy_pack') THEN
      v_admitted := v_admitted + 1;
      ins_item[v_admitted] := i;
      ins_source[v_admitted] := CASE WHEN v_decision = 'plan' THEN 'plan' ELSE 'top_up' END;
    END IF;
    d_decision[i] := v_decision;
    d_use[i] := NULL;
    d_used[i] := w_used;
    d_top_up[i] := w_top_up;
    d_admitted[i] := v_admitted;
  END LOOP;

  IF v_admitted > 0 THEN
    SELECT array_agg(nextval('credit_uses_id_seq'::regclass)) INTO v_ids
      FROM generate_series(1, v_admitted);
    INSERT INTO credit_uses (id, user_id, billing_account_id, org_id, key_id, route, request_id,
                             source, at)
      SELECT v_ids[k], p_user, v_account, p_org, v_keys[ins_item[k]], v_routes[ins_item[k]],
             v_requests[ins_item[k]], ins_source[k], v_ats[ins_item[k]]
        FROM generate_series(1, v_admitted) AS k;
    FOR i IN 1 .. v_admitted LOOP
      d_use[ins_item[i]] := v_ids[i];
    END LOOP;
    INSERT INTO daily_quota_usage AS q (org_id, day, used) VALUES (p_org, p_day, v_admitted)
      ON CONFLICT (org_id, day) DO UPDATE SET used = q.used + v_admitted
      RETURNING q.used INTO v_quota;
  ELSE
    SELECT q.used INTO v_quota FROM daily_quota_usage q WHERE q.org_id = p_org AND q.day = p_day;
  END IF;
  v_quota := coalesce(v_quota, 0);

  UPDATE credit_windows cw SET used = w_used, cutoff = w_cutoff, top_up_credits = w_top_up
    WHERE cw.user_id = p_user AND cw.billing_account_id = v_account;

  v_frees := CASE WHEN w_used > 0 THEN (
    SELECT (extract(epoch FROM u.at) * 1000)::float8 FROM credit_uses u
      WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
        AND u.at > w_cutoff
      ORDER BY u.at OFFSET greatest(w_used - v_limit, 0) LIMIT 1
  ) END;
  v_newest := (SELECT (extract(epoch FROM u.at) * 1000)::float8 FROM credit_uses u
    WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
      AND u.at > w_cutoff
    ORDER BY u.at DESC LIMIT 1);

  RETURN QUERY SELECT
    d.ord::integer, d.decision, d.use_id, d.used, d.top_up, v_frees, v_newest,
    -- The daily bucket as it stood right after each item.
    v_quota - (v_admitted - d.admitted),
    b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up, b.seat_plan,
    b.ledger_status, b.last_sync_ms
  FROM unnest(d_decision, d_use, d_used, d_top_up, d_admitted)
       WITH ORDINALITY AS d(decision, use_id, used, top_up, admitted, ord)
  ORDER BY d.ord;
END $$;
--> statement-breakpoint
-- Gives a use back (a 5xx, or a 400/401/403 after admission): deletes its row and restores the
-- window count or the top-up balance, and the organisation's daily bucket. False if already gone.
CREATE OR REPLACE FUNCTION metering_refund(p_use bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  u credit_uses%ROWTYPE;
  w_cutoff timestamptz;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO u FROM credit_uses cu WHERE cu.id = p_use;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT cw.cutoff INTO w_cutoff FROM credit_windows cw
    WHERE cw.user_id = u.user_id AND cw.billing_account_id = u.billing_account_id
    FOR UPDATE;
  DELETE FROM credit_uses cu WHERE cu.id = p_use;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF u.source = 'top_up' THEN
    UPDATE credit_windows cw SET top_up_credits = cw.top_up_credits + 1
      WHERE cw.user_id = u.user_id AND cw.billing_account_id = u.billing_account_id;
  ELSIF u.at > w_cutoff THEN
    UPDATE credit_windows cw SET used = cw.used - 1
      WHERE cw.user_id = u.user_id AND cw.billing_account_id = u.billing_account_id;
  END IF;
  UPDATE daily_quota_usage q SET used = q.used - 1
    WHERE q.org_id = u.org_id AND q.day = (u.at AT TIME ZONE 'UTC')::date AND q.used > 0;
  RETURN true;
END $$;
--> statement-breakpoint
-- One (user, billing account) window without admitting anything, read without a lock and counted
-- directly from the uses (so it does not depend on the incremental count), and the daily bucket.
CREATE OR REPLACE FUNCTION metering_window(
  p_user text, p_account text, p_org text, p_cutoff timestamptz, p_limit integer, p_day date
) RETURNS TABLE (
  r_used integer, r_top_up integer, r_frees_at_ms float8, r_newest_at_ms float8,
  r_quota_used integer
) LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_used integer;
BEGIN
  SELECT count(*)::integer INTO v_used FROM credit_uses u
    WHERE u.user_id = p_user AND u.billing_account_id = p_account AND u.source = 'plan'
      AND u.at > p_cutoff;
  RETURN QUERY SELECT
    v_used,
    coalesce((SELECT cw.top_up_credits FROM credit_windows cw
      WHERE cw.user_id = p_user AND cw.billing_account_id = p_account), 0),
    CASE WHEN v_used > 0 THEN (
      SELECT (extract(epoch FROM u.at) * 1000)::float8 FROM credit_uses u
        WHERE u.user_id = p_user AND u.billing_account_id = p_account AND u.source = 'plan'
          AND u.at > p_cutoff
        ORDER BY u.at OFFSET greatest(v_used - p_limit, 0) LIMIT 1
    ) END,
    (SELECT (extract(epoch FROM u.at) * 1000)::float8 FROM credit_uses u
      WHERE u.user_id = p_user AND u.billing_account_id = p_account AND u.source = 'plan'
        AND u.at > p_cutoff
      ORDER BY u.at DESC LIMIT 1),
    coalesce((SELECT q.used FROM daily_quota_usage q WHERE q.org_id = p_org AND q.day = p_day), 0);
END $$;
--> statement-breakpoint
-- The figures of metering_admit_batch without admitting anything (/api/agent/status): billing, then
-- the window of the user's seat (null columns without one) and the daily bucket.
CREATE OR REPLACE FUNCTION metering_state(
  p_user text, p_org text, p_cutoff timestamptz, p_day date, p_allowance jsonb
) RETURNS TABLE (
  r_used integer, r_top_up integer, r_frees_at_ms float8, r_newest_at_ms float8,
  r_quota_used integer,
  r_account text, r_plan text, r_status text, r_trial_ends_ms float8, r_auto_top_up boolean,
  r_seat_plan text, r_ledger_status text, r_last_sync_ms float8
) LANGUAGE plpgsql STABLE AS $$
DECLARE
  b record;
BEGIN
  SELECT * INTO b FROM metering_billing(p_user, p_org);
  IF b.account IS NOT NULL AND b.seat_plan IS NOT NULL THEN
    RETURN QUERY SELECT w.*, b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up,
        b.seat_plan, b.ledger_status, b.last_sync_ms
      FROM metering_window(p_user, b.account, p_org, p_cutoff,
                           (p_allowance ->> b.seat_plan)::integer, p_day) AS w;
  ELSE
    RETURN QUERY SELECT NULL::integer, NULL::integer, NULL::float8, NULL::float8,
        coalesce((SELECT q.used FROM daily_quota_usage q WHERE q.org_id = p_org AND q.day = p_day), 0),
        b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up, b.seat_plan,
        b.ledger_status, b.last_sync_ms;
  END IF;
END $$;
