import type { FC } from "hono/jsx";
import { autoTopUpBlocker } from "../../domain/metering/auto-top-up.ts";
import { CREDIT_ALLOWANCE } from "../../domain/metering/plans.ts";
import type { BillingView, WindowUsage } from "../../services/billing/billing-view.ts";
import { CsrfField, Layout, Notice } from "../components/layout.tsx";
import { formatInstant } from "../format.ts";
import type { CurrentOrg, WebView } from "../request.ts";

/**
 * The automatic top-up toggle. Where top-up could never buy a pack (Free, a canceled or ended
 * subscription) the reason is shown instead of "Turn on"; turning it off is always possible.
 */
const AutoTopUpControl: FC<{ view: WebView; billing: BillingView; canManage: boolean }> = ({
  view,
  billing,
  canManage,
}) => {
  const blocker = autoTopUpBlocker(
    { plan: billing.plan, status: billing.subscriptionStatus },
    billing.seats.map((s) => s.plan),
  );
  return (
    <>
      {canManage && (billing.autoTopUp || !blocker) ? (
        <form method="post" action="/settings/billing/auto-top-up">
          <CsrfField token={view.csrfToken} orgId={view.org?.id} />
          <input type="hidden" name="autoTopUp" value={billing.autoTopUp ? "off" : "on"} />
          <button type="submit" class="small secondary">
            {billing.autoTopUp ? "Turn off" : "Turn on"}
          </button>
        </form>
      ) : null}
      {blocker ? (
        <div class="muted" id="auto-top-up-blocker">
          Unavailable: {blocker}.
        </div>
      ) : billing.subscriptionStatus !== "active" ? (
        <div class="muted">Packs are bought only while the subscription is active.</div>
      ) : null}
    </>
  );
};

/** Settings → Billing (owner only). */
export const BillingPage: FC<{
  view: WebView;
  org: CurrentOrg;
  billing: BillingView | undefined;
  usage: WindowUsage | undefined;
  canManage: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}> = ({ view, org, billing, usage, canManage, notice, error }) => (
  <Layout title="Billing" view={view} active="billing">
    <h1>Billing</h1>
    <p class="lead">
      Plans sell query capacity per rolling 5-hour window; every plan has the same features. The
      account's seats pay for {org.name}'s queries.
    </p>
    {notice ? <Notice kind="ok">{notice}</Notice> : null}
    {error ? <Notice kind="error">{error}</Notice> : null}
    {!billing ? (
      <div class="empty">
        {org.name} has no billing account: its queries are not billed to anyone.
      </div>
    ) : (
      <div>
        <div class="grid">
          <div class="panel stat">
            <div class="label">Plan</div>
            <div class="value" id="plan">
              {billing.plan}
            </div>
            <div class="muted">{CREDIT_ALLOWANCE[billing.plan]} queries per 5 hours per seat</div>
          </div>
          <div class="panel stat">
            <div class="label">Subscription</div>
            <div class="value" id="subscription-status">
              {billing.subscriptionStatus}
            </div>
            <div class="muted">Billing account {billing.name}</div>
          </div>
          <div class="panel stat">
            <div class="label">Trial</div>
            <div class="value" id="trial-days">
              {billing.trialDaysRemaining === null
                ? "—"
                : `${billing.trialDaysRemaining} days left`}
            </div>
            <div class="muted">
              {billing.trialEndsAt && billing.subscriptionStatus === "trialing"
                ? `ends ${formatInstant(billing.trialEndsAt, org.timezone, { zone: true })}`
                : "not trialing"}
            </div>
          </div>
          <div class="panel stat">
            <div class="label">Automatic top-up</div>
            <div class="value" id="auto-top-up">
              {billing.autoTopUp ? "On" : "Off"}
            </div>
            <AutoTopUpControl view={view} billing={billing} canManage={canManage} />
          </div>
        </div>
        <h2>Query credits in the current window</h2>
        <p class="muted" id="usage-source">
          Each seat holds its plan's allowance per rolling 5-hour window; a credit frees when its
          call is 5 hours old. These are the figures <code>GET /api/agent/status</code> reports as{" "}
          <code>usage</code> for that seat's keys. Top-up credits are spent only once the window is
          full.
        </p>
        <div class="grid" id="seats">
          {billing.seats.map((s) => {
            const u = usage?.bySeat.get(s.userId);
            const limit = u ? u.limit : CREDIT_ALLOWANCE[s.plan];
            const used = u ? u.used : 0;
            return (
              <div class="panel stat seat" data-seat={s.email}>
                <div class="label">
                  {s.email} · {s.plan}
                </div>
                <div class="value">
                  {used} <span class="muted">of {limit} queries</span>
                </div>
                <meter
                  min={0}
                  max={limit}
                  low={Math.floor(limit * 0.7)}
                  high={Math.floor(limit * 0.9)}
                  optimum={0}
                  value={Math.min(used, limit)}
                  aria-label={`${s.email}: ${used} of ${limit} queries used in this window`}
                ></meter>
                <div class="muted small">
                  {u ? `${u.remaining} left` : "—"}
                  {u && u.topUpCredits > 0 ? ` · ${u.topUpCredits} top-up credits` : ""}
                  {!u
                    ? ""
                    : used === 0
                      ? " · nothing used in the last 5 hours"
                      : u.nextCreditInMinutes === 0
                        ? " · a credit frees now"
                        : ` · next credit frees in ${u.nextCreditInMinutes} min; all by ${formatInstant(u.windowResetAt, org.timezone)}`}
                </div>
              </div>
            );
          })}
        </div>
        <h2>Payment method and invoices</h2>
        <div class="placeholder" id="payment-placeholder">
          <strong>No payment processor is connected.</strong> This is where the card on file, plan
          changes, and past invoices would be managed, through the payment processor's hosted
          customer portal. Until one is connected, an operator sets plans from the command line.
        </div>
      </div>
    )}
  </Layout>
);
