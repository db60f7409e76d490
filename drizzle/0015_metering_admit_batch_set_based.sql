-- Group admission, same contract and decisions as 0012 (docs/metering.md), less work per item:
-- * the uses of a batch are written by one INSERT (ids drawn from the sequence first, so each
--   item still gets its own refund handle), instead of one INSERT statement per item;
-- * moving the window's cutoff item by item probes the oldest plan use still counted once and
--   counts aged-out uses only when an item's cutoff actually passes it, instead of one count
--   query per item. A backward move (an item with an earlier instant than the window's cutoff
--   allows) still counts the uses that count again. Until they are written, the batch's own
--   plan uses are counted from an array, so every decision is the one 0012 makes.
-- Measured on the 100,000-invoice benchmark organisation: see docs/benchmarks.md.
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

  SELECT array_agg((e.item ->> 'at')::timestamptz ORDER BY e.ord),
         array_agg(e.item ->> 'key' ORDER BY e.ord),
         array_agg(e.item ->> 'route' ORDER BY e.ord),
         array_agg(e.item ->> 'request' ORDER BY e.ord)
    INTO v_ats, v_keys, v_routes, v_requests
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(item, ord);
  v_n := coalesce(array_length(v_ats, 1), 0);
  -- The window's length: p_cutoff is the latest item's instant minus the window.
  v_window := (SELECT max(a) FROM unnest(v_ats) AS a) - p_cutoff;

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
      w_top_up := v_pack - 1;
      INSERT INTO billing_events (billing_account_id, kind, user_id, org_id, credits, details, at)
        VALUES (v_account, 'top_up', p_user, p_org, v_pack,
                jsonb_build_object('plan', b.seat_plan, 'requestId', v_requests[i]), v_ats[i]);
    ELSE
      v_decision := 'refuse';
    END IF;
    IF v_decision <> 'refuse' THEN
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
