CREATE TABLE "billing_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"billing_account_id" text NOT NULL,
	"kind" text NOT NULL,
	"user_id" text,
	"org_id" text,
	"credits" integer,
	"details" jsonb,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_uses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"billing_account_id" text NOT NULL,
	"org_id" text NOT NULL,
	"key_id" text NOT NULL,
	"route" text NOT NULL,
	"request_id" text NOT NULL,
	"source" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_windows" (
	"user_id" text NOT NULL,
	"billing_account_id" text NOT NULL,
	"used" integer NOT NULL,
	"cutoff" timestamp with time zone NOT NULL,
	"top_up_credits" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "credit_windows_user_id_billing_account_id_pk" PRIMARY KEY("user_id","billing_account_id")
);
--> statement-breakpoint
CREATE TABLE "daily_quota_usage" (
	"org_id" text NOT NULL,
	"day" date NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "daily_quota_usage_org_id_day_pk" PRIMARY KEY("org_id","day")
);
--> statement-breakpoint
ALTER TABLE "billing_events" ADD CONSTRAINT "billing_events_billing_account_id_billing_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."billing_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_uses" ADD CONSTRAINT "credit_uses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_uses" ADD CONSTRAINT "credit_uses_billing_account_id_billing_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."billing_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_windows" ADD CONSTRAINT "credit_windows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_windows" ADD CONSTRAINT "credit_windows_billing_account_id_billing_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."billing_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_quota_usage" ADD CONSTRAINT "daily_quota_usage_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "billing_events_account_at_idx" ON "billing_events" USING btree ("billing_account_id","at");--> statement-breakpoint
CREATE INDEX "credit_uses_window_idx" ON "credit_uses" USING btree ("user_id","billing_account_id","source","at");--> statement-breakpoint
-- Query-credit functions (docs/metering.md). metering_admit and metering_refund are each called
-- as one autocommit statement, so the row lock on credit_windows is held until that statement
-- commits: concurrent admissions for one (user, billing account), from any instance, queue on it.
-- Every statement inside a VOLATILE plpgsql function takes a fresh snapshot, so once the lock is
-- granted the counts see everything the previous holder committed. Invariant kept by every
-- writer, under the lock: credit_windows.used = number of plan uses with at > cutoff.
--
-- What one metered request needs to know about billing, in one row (always exactly one): the
-- organisation's billing account, the user's seat on it, and the ledger connection (with the last
-- successful sync, read only when the connection needs attention).
CREATE FUNCTION metering_billing(p_user text, p_org text) RETURNS TABLE (
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
-- One metered call, in one round trip: read billing; without a billing account or a seat, stop
-- ('no_account', 'no_seat'); else lock the window, bring its count up to date, decide exactly as
-- decideCredit() and topUpPackFor() in src/domain/metering/credit-window.ts, record the use and
-- the daily bucket, and return the figures. p_allowance and p_packs map plan names to credits.
CREATE FUNCTION metering_admit(
  p_user text, p_org text, p_key text, p_route text, p_request text,
  p_now timestamptz, p_cutoff timestamptz, p_day date, p_allowance jsonb, p_packs jsonb
) RETURNS TABLE (
  r_decision text, r_use_id bigint, r_used integer, r_top_up integer,
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
  v_decision text;
  v_use bigint;
  v_quota integer;
BEGIN
  -- Asynchronous commit for this transaction only: the lock below is released without waiting
  -- for the WAL flush, which triples how fast one (user, billing account) can be admitted. Other
  -- sessions still see the commit at once (exactness holds); a PostgreSQL crash can lose the
  -- last fraction of a second of uses, consistently (uses, top-up balance and its billing event
  -- together), in the customer's favour. docs/metering.md.
  PERFORM set_config('synchronous_commit', 'off', true);

  SELECT * INTO b FROM metering_billing(p_user, p_org);
  IF b.account IS NULL OR b.seat_plan IS NULL THEN
    RETURN QUERY SELECT
      CASE WHEN b.account IS NULL THEN 'no_account' ELSE 'no_seat' END,
      NULL::bigint, NULL::integer, NULL::integer, NULL::float8, NULL::float8,
      coalesce((SELECT q.used FROM daily_quota_usage q WHERE q.org_id = p_org AND q.day = p_day), 0),
      b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up, b.seat_plan,
      b.ledger_status, b.last_sync_ms;
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

  -- Move the cutoff to this call's window start, counting only the uses in between: uses that
  -- aged out (forward), or that count again for an instance whose clock is behind (backward).
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
              jsonb_build_object('plan', b.seat_plan, 'requestId', p_request), p_now);
  ELSE
    v_decision := 'refuse';
  END IF;

  IF v_decision <> 'refuse' THEN
    INSERT INTO credit_uses (user_id, billing_account_id, org_id, key_id, route, request_id, source, at)
      VALUES (p_user, v_account, p_org, p_key, p_route, p_request,
              CASE WHEN v_decision = 'plan' THEN 'plan' ELSE 'top_up' END, p_now)
      RETURNING id INTO v_use;
    INSERT INTO daily_quota_usage AS q (org_id, day, used) VALUES (p_org, p_day, 1)
      ON CONFLICT (org_id, day) DO UPDATE SET used = q.used + 1
      RETURNING q.used INTO v_quota;
  ELSE
    SELECT q.used INTO v_quota FROM daily_quota_usage q WHERE q.org_id = p_org AND q.day = p_day;
  END IF;

  UPDATE credit_windows cw SET used = w_used, cutoff = w_cutoff, top_up_credits = w_top_up
    WHERE cw.user_id = p_user AND cw.billing_account_id = v_account;

  RETURN QUERY SELECT
    v_decision,
    v_use,
    w_used,
    w_top_up,
    -- The use whose expiry next makes a plan credit available: the oldest while the window has
    -- room, else the (used - limit + 1)-th oldest.
    CASE WHEN w_used > 0 THEN (
      SELECT (extract(epoch FROM u.at) * 1000)::float8 FROM credit_uses u
        WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
          AND u.at > w_cutoff
        ORDER BY u.at OFFSET greatest(w_used - v_limit, 0) LIMIT 1
    ) END,
    -- ORDER BY ... LIMIT 1 rather than max(): one index step, not a scan of the window.
    (SELECT (extract(epoch FROM u.at) * 1000)::float8 FROM credit_uses u
      WHERE u.user_id = p_user AND u.billing_account_id = v_account AND u.source = 'plan'
        AND u.at > w_cutoff
      ORDER BY u.at DESC LIMIT 1),
    coalesce(v_quota, 0),
    b.account, b.plan, b.status, b.trial_ends_ms, b.auto_top_up, b.seat_plan,
    b.ledger_status, b.last_sync_ms;
END $$;
--> statement-breakpoint
-- Gives a use back (a 5xx, or a 400/401/403 after admission): deletes its row and restores the
-- window count or the top-up balance, and the organisation's daily bucket. False if already gone.
CREATE FUNCTION metering_refund(p_use bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
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
CREATE FUNCTION metering_window(
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
-- The figures of metering_admit without admitting anything (/api/agent/status): billing, then
-- the window of the user's seat (null columns without one) and the daily bucket.
CREATE FUNCTION metering_state(
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
