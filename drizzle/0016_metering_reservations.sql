-- Group admission (metering_admit_batch, 0012) rewritten with the same decisions and less work
-- per item, and taught the credit reservations of 0015 (docs/metering.md).
--
-- Less work per item:
-- * the uses of a batch are written by one INSERT (ids drawn from the sequence first, so each
--   item still gets its own refund handle), instead of one INSERT statement per item;
-- * moving the window's cutoff item by item probes the oldest plan use still counted once and
--   counts aged-out uses only when an item's cutoff actually passes it, instead of one count
--   query per item. A backward move (an item with an earlier instant than the window's cutoff
--   allows) still counts the uses that count again. Until they are written, the batch's own
--   plan uses are counted from an array, so every decision is the one 0012 makes.
--
-- Credit reservations: an instance serving a busy (user, billing account) holds a few credits
-- and admits from memory, writing the uses as they settle, so a busy key costs a statement per
-- settlement instead of one per batch of calls. Invariant kept under the window lock by every
-- writer: used + reserved_plan <= allowance (plan uses with at > cutoff, plus plan credits held),
-- and reserved_top_up <= top_up_credits. Group admission learns them: held credits are not
-- available, expired ones are given back first, and a call that would buy a pack or be refused
-- while any are held answers 'wait' (the credit store retries it shortly) rather than being
-- refused next to unused credits. Everything else decides exactly as 0012.
-- Ends the reservations of one (user, billing account) past their expiry (database clock) and
-- returns what they still held, for the caller to give back on the window row it has locked.
CREATE FUNCTION metering_reap_reservations(p_user text, p_account text)
RETURNS TABLE (plan integer, top_up integer) LANGUAGE sql VOLATILE AS $$
  WITH gone AS (
    DELETE FROM credit_reservations cr
      WHERE cr.user_id = p_user AND cr.billing_account_id = p_account
        AND cr.expires_at <= clock_timestamp()
      RETURNING cr.plan_credits, cr.top_up_credits
  )
  SELECT coalesce(sum(g.plan_credits), 0)::integer, coalesce(sum(g.top_up_credits), 0)::integer
    FROM gone AS g
$$;
--> statement-breakpoint
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
  w_res_plan integer;
  w_res_top integer;
  v_now timestamptz;
  v_gone_plan integer;
  v_gone_top integer;
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
  -- Asynchronous commit, as metering_admit (0004, see there).
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

  SELECT cw.used, cw.cutoff, cw.top_up_credits, cw.reserved_plan, cw.reserved_top_up
    INTO w_used, w_cutoff, w_top_up, w_res_plan, w_res_top
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
    SELECT cw.used, cw.cutoff, cw.top_up_credits, cw.reserved_plan, cw.reserved_top_up
      INTO w_used, w_cutoff, w_top_up, w_res_plan, w_res_top
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

  -- Reservations past their expiry (database clock) give back what they hold: their instance
  -- stopped or stalled.
  IF w_res_plan + w_res_top > 0 THEN
    SELECT g.plan, g.top_up INTO v_gone_plan, v_gone_top
      FROM metering_reap_reservations(p_user, v_account) AS g;
    w_res_plan := w_res_plan - v_gone_plan;
    w_res_top := w_res_top - v_gone_top;
  END IF;

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
    -- Credits held by reservations are spoken for; while any are held, a call that would buy a
    -- pack or be refused waits for them instead ('wait': the caller retries shortly), so no call
    -- is refused, and no pack bought, while credits sit unused in a reservation.
    IF w_used + w_res_plan < v_limit THEN
      v_decision := 'plan';
      w_used := w_used + 1;
      -- This batch's uses are written after the loop; until then the window's moves count
      -- them from v_batch_plan, as they would count the rows.
      v_batch_plan := array_append(v_batch_plan, v_ats[i]);
      v_oldest := least(v_oldest, v_ats[i]);
    ELSIF w_top_up - w_res_top > 0 THEN
      v_decision := 'top_up';
      w_top_up := w_top_up - 1;
    ELSIF w_res_plan + w_res_top > 0 THEN
      v_decision := 'wait';
    ELSIF v_pack > 0 THEN
      v_decision := 'buy_pack';
      -- A balance below zero (uses of a reservation that settled after it expired) is owed.
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

  UPDATE credit_windows cw SET used = w_used, cutoff = w_cutoff, top_up_credits = w_top_up,
                               reserved_plan = w_res_plan, reserved_top_up = w_res_top
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
-- Holds up to p_want credits (plan credits first, then top-up credits) for one instance, leaving
-- at least p_floor available to every other caller; grants nothing rather than less than that.
-- The reservation expires p_hold_ms after the grant by the database's clock (one clock for every
-- instance, whatever their own clocks say); the next statement locking the window after that
-- gives back what it still holds.
-- Never buys a pack. Returns the reservation (null when nothing was granted), what it holds, and
-- the window and billing figures as group admission returns them.
CREATE FUNCTION metering_reserve(
  p_user text, p_org text, p_cutoff timestamptz, p_now timestamptz, p_day date,
  p_allowance jsonb, p_want integer, p_floor integer, p_hold_ms integer
) RETURNS TABLE (
  r_reservation bigint, r_granted_plan integer, r_granted_top_up integer,
  r_used integer, r_top_up integer, r_frees_at_ms float8, r_newest_at_ms float8,
  r_quota_used integer,
  r_account text, r_plan text, r_status text, r_trial_ends_ms float8, r_auto_top_up boolean,
  r_seat_plan text, r_ledger_status text, r_last_sync_ms float8
) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  b record;
  v_account text;
  v_limit integer;
  w_used integer;
  w_cutoff timestamptz;
  w_top_up integer;
  w_res_plan integer;
  w_res_top integer;
  v_gone_plan integer;
  v_gone_top integer;
  v_avail_plan integer;
  v_avail_top integer;
  v_grant integer;
  g_plan integer := 0;
  g_top integer := 0;
  v_id bigint;
  v_frees float8;
  v_newest float8;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO b FROM metering_billing(p_user, p_org);
  IF b.account IS NULL OR b.seat_plan IS NULL THEN
    RETURN QUERY SELECT NULL::bigint, 0, 0, NULL::integer, NULL::integer, NULL::float8,
      NULL::float8, 0, b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up,
      b.seat_plan, b.ledger_status, b.last_sync_ms;
    RETURN;
  END IF;
  v_account := b.account;
  v_limit := (p_allowance ->> b.seat_plan)::integer;

  SELECT cw.used, cw.cutoff, cw.top_up_credits, cw.reserved_plan, cw.reserved_top_up
    INTO w_used, w_cutoff, w_top_up, w_res_plan, w_res_top
    FROM credit_windows cw
    WHERE cw.user_id = p_user AND cw.billing_account_id = v_account
    FOR UPDATE;
  IF NOT FOUND THEN
    -- Group admission creates the window on a pair's first call; nothing to hold before that.
    RETURN QUERY SELECT NULL::bigint, 0, 0, NULL::integer, NULL::integer, NULL::float8,
      NULL::float8, 0, b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up,
      b.seat_plan, b.ledger_status, b.last_sync_ms;
    RETURN;
  END IF;

  IF w_res_plan + w_res_top > 0 THEN
    SELECT g.plan, g.top_up INTO v_gone_plan, v_gone_top
      FROM metering_reap_reservations(p_user, v_account) AS g;
    w_res_plan := w_res_plan - v_gone_plan;
    w_res_top := w_res_top - v_gone_top;
  END IF;

  IF p_cutoff > w_cutoff THEN
    w_used := w_used - (SELECT count(*)::integer FROM credit_uses u
      WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
        AND u.at > w_cutoff AND u.at <= p_cutoff);
    w_cutoff := p_cutoff;
  ELSIF p_cutoff < w_cutoff THEN
    w_used := w_used + (SELECT count(*)::integer FROM credit_uses u
      WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
        AND u.at > p_cutoff AND u.at <= w_cutoff);
    w_cutoff := p_cutoff;
  END IF;

  v_avail_plan := greatest(v_limit - w_used - w_res_plan, 0);
  v_avail_top := greatest(w_top_up - w_res_top, 0);
  v_grant := least(p_want, v_avail_plan + v_avail_top - p_floor);
  IF v_grant > 0 THEN
    g_plan := least(v_grant, v_avail_plan);
    g_top := v_grant - g_plan;
    INSERT INTO credit_reservations (user_id, billing_account_id, org_id, plan_credits,
                                     top_up_credits, expires_at)
      VALUES (p_user, v_account, p_org, g_plan, g_top,
              clock_timestamp() + make_interval(secs => p_hold_ms / 1000.0))
      RETURNING id INTO v_id;
    w_res_plan := w_res_plan + g_plan;
    w_res_top := w_res_top + g_top;
  END IF;

  UPDATE credit_windows cw SET used = w_used, cutoff = w_cutoff, reserved_plan = w_res_plan,
                               reserved_top_up = w_res_top
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

  RETURN QUERY SELECT v_id, g_plan, g_top, w_used, w_top_up, v_frees, v_newest,
    coalesce((SELECT q.used FROM daily_quota_usage q WHERE q.org_id = p_org AND q.day = p_day), 0),
    b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up, b.seat_plan,
    b.ledger_status, b.last_sync_ms;
END $$;
--> statement-breakpoint
-- Writes uses admitted from a reservation (p_items: [{key, route, request, at, source}, ...])
-- and moves them from held to used; with p_done, gives back what the reservation still holds and
-- ends it. A reservation already given back on expiry (its instance stalled past it) holds
-- nothing any more: its uses are still written and counted, even past the allowance.
-- Returns each item's use id, in order (refund handles).
CREATE FUNCTION metering_settle(
  p_reservation bigint, p_user text, p_account text, p_org text, p_items jsonb, p_done boolean
) RETURNS TABLE (r_ord integer, r_use_id bigint) LANGUAGE plpgsql VOLATILE AS $$
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
  SELECT cw.cutoff INTO w_cutoff FROM credit_windows cw
    WHERE cw.user_id = p_user AND cw.billing_account_id = p_account
    FOR UPDATE;
  SELECT count(*)::integer,
         (count(*) FILTER (WHERE e.item ->> 'source' = 'plan'))::integer,
         (count(*) FILTER (WHERE e.item ->> 'source' = 'plan'
                             AND (e.item ->> 'at')::timestamptz > w_cutoff))::integer,
         (count(*) FILTER (WHERE e.item ->> 'source' = 'top_up'))::integer
    INTO v_n, v_plan, v_plan_counted, v_top
    FROM jsonb_array_elements(p_items) AS e(item);
  IF v_n > 0 THEN
    SELECT array_agg(nextval('credit_uses_id_seq'::regclass)) INTO v_ids
      FROM generate_series(1, v_n);
    INSERT INTO credit_uses (id, user_id, billing_account_id, org_id, key_id, route, request_id,
                             source, at)
      SELECT v_ids[e.ord], p_user, p_account, p_org, e.item ->> 'key', e.item ->> 'route',
             e.item ->> 'request', e.item ->> 'source', (e.item ->> 'at')::timestamptz
        FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(item, ord);
    INSERT INTO daily_quota_usage AS q (org_id, day, used)
      SELECT p_org, ((e.item ->> 'at')::timestamptz AT TIME ZONE 'UTC')::date, count(*)::integer
        FROM jsonb_array_elements(p_items) AS e(item)
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

  RETURN QUERY SELECT o::integer, v_ids[o] FROM generate_series(1, v_n) AS o;
END $$;
