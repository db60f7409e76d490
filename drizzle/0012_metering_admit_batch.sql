-- metering_admit (0004) stays for instances of the previous release during a rolling upgrade.
-- Group admission (docs/metering.md): several metered calls of one (user, organisation) in one
-- statement. The credit store sends a call at once when none of that pair is in flight; calls
-- arriving meanwhile queue and go together in the next statement. Items are decided in array
-- order exactly as metering_admit decides calls one after another, each against its own window
-- (its own now - 5 h: the cutoff moves item by item) (same lock, same invariant:
-- credit_windows.used = plan uses with at > cutoff), with one billing read, one window lock, one
-- daily-bucket update and one commit per batch. p_items: [{key, route, request, at}, ...].
-- Returns one row per item, in order (r_ord from 1); the window figures (frees at, newest) are
-- those after the whole batch.
CREATE FUNCTION metering_admit_batch(
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
  v_item jsonb;
  v_at timestamptz;
  v_window interval;
  v_cut timestamptz;
  v_decision text;
  v_use bigint;
  v_admitted integer := 0;
  v_quota integer;
  v_frees float8;
  v_newest float8;
  d_decision text[] := '{}';
  d_use bigint[] := '{}';
  d_used integer[] := '{}';
  d_top_up integer[] := '{}';
  d_admitted integer[] := '{}';
BEGIN
  -- Asynchronous commit, as metering_admit (see there).
  PERFORM set_config('synchronous_commit', 'off', true);

  SELECT * INTO b FROM metering_billing(p_user, p_org);
  IF b.account IS NULL OR b.seat_plan IS NULL THEN
    v_quota := coalesce((SELECT q.used FROM daily_quota_usage q
                          WHERE q.org_id = p_org AND q.day = p_day), 0);
    RETURN QUERY SELECT
      i.ord::integer,
      CASE WHEN b.account IS NULL THEN 'no_account' ELSE 'no_seat' END,
      NULL::bigint, NULL::integer, NULL::integer, NULL::float8, NULL::float8, v_quota,
      b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up, b.seat_plan,
      b.ledger_status, b.last_sync_ms
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i(item, ord)
    ORDER BY i.ord;
    RETURN;
  END IF;
  v_account := b.account;
  v_limit := (p_allowance ->> b.seat_plan)::integer;
  v_pack := CASE WHEN b.auto_top_up AND b.status = 'active'
                 THEN coalesce((p_packs ->> b.seat_plan)::integer, 0) ELSE 0 END;

  SELECT cw.used, cw.cutoff, cw.top_up_credits INTO w_used, w_cutoff, w_top_up
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
    SELECT cw.used, cw.cutoff, cw.top_up_credits INTO w_used, w_cutoff, w_top_up
      FROM credit_windows cw
      WHERE cw.user_id = p_user AND cw.billing_account_id = v_account
      FOR UPDATE;
  END IF;

  -- The window's length: p_cutoff is the latest item's instant minus the window.
  v_window := (SELECT max((i.item ->> 'at')::timestamptz) FROM jsonb_array_elements(p_items) AS i(item))
              - p_cutoff;

  FOR v_item IN SELECT i.item FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i(item, ord)
                ORDER BY i.ord LOOP
    v_at := (v_item ->> 'at')::timestamptz;
    v_use := NULL;
    -- Each item against its own window (now - 5 h), exactly as a call alone would be: move the
    -- cutoff, subtracting the plan uses that aged out in between (or adding back the ones that
    -- count again for an earlier instant).
    v_cut := v_at - v_window;
    IF v_cut > w_cutoff THEN
      w_used := w_used - (SELECT count(*)::integer FROM credit_uses u
        WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
          AND u.at > w_cutoff AND u.at <= v_cut);
      w_cutoff := v_cut;
    ELSIF v_cut < w_cutoff THEN
      w_used := w_used + (SELECT count(*)::integer FROM credit_uses u
        WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
          AND u.at > v_cut AND u.at <= w_cutoff);
      w_cutoff := v_cut;
    END IF;
    IF w_used < v_limit THEN
      v_decision := 'plan';
      w_used := w_used + 1;
    ELSIF w_top_up > 0 THEN
      v_decision := 'top_up';
      w_top_up := w_top_up - 1;
    ELSIF v_pack > 0 THEN
      v_decision := 'buy_pack';
      w_top_up := v_pack - 1;
      INSERT INTO billing_events (billing_account_id, kind, user_id, org_id, credits, details, at)
        VALUES (v_account, 'top_up', p_user, p_org, v_pack,
                jsonb_build_object('plan', b.seat_plan, 'requestId', v_item ->> 'request'), v_at);
    ELSE
      v_decision := 'refuse';
    END IF;
    IF v_decision <> 'refuse' THEN
      INSERT INTO credit_uses (user_id, billing_account_id, org_id, key_id, route, request_id,
                               source, at)
        VALUES (p_user, v_account, p_org, v_item ->> 'key', v_item ->> 'route',
                v_item ->> 'request', CASE WHEN v_decision = 'plan' THEN 'plan' ELSE 'top_up' END,
                v_at)
        RETURNING id INTO v_use;
      v_admitted := v_admitted + 1;
    END IF;
    d_decision := array_append(d_decision, v_decision);
    d_use := array_append(d_use, v_use);
    d_used := array_append(d_used, w_used);
    d_top_up := array_append(d_top_up, w_top_up);
    d_admitted := array_append(d_admitted, v_admitted);
  END LOOP;

  IF v_admitted > 0 THEN
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
