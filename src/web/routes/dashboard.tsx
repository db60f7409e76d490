import type { Hono } from "hono";
import { canonical, money } from "../../domain/money.ts";
import type { AppEnv } from "../../http/env.ts";
import { cashToday } from "../../services/bank-accounts/cash-today.ts";
import { viewerPlan } from "../../services/billing/billing-view.ts";
import { setRunwayThreshold } from "../../services/runway/threshold.ts";
import { can } from "../../services/web-auth/roles.ts";
import { VARIANCE_HORIZONS } from "../components/variance-chart.tsx";
import { type ForecastInput, forecastSeries } from "../dashboard/forecast-series.ts";
import { burnRunway, periodChange, runwayWeeks } from "../dashboard/runway.ts";
import { dashboardExtras } from "../data/dashboard.ts";
import type { WebDeps } from "../deps.ts";
import { DashboardPage, type ForecastView, type KpiTile, NoOrgPage } from "../pages/dashboard.tsx";
import { UpgradePage } from "../pages/upgrade.tsx";
import { renderPage } from "../render.ts";
import { readForm, requireRight, requireView, verifyOrgForm, WebError } from "../request.ts";

function toView(f: ForecastInput, currency: string): ForecastView {
  return {
    scenarioId: f.scenarioId ?? "",
    scenarioName: f.scenarioName ?? "Base",
    scenarioKind: f.scenarioKind ?? "BASE",
    series: forecastSeries(f),
    weeks: f.weeks,
    computedAt: f.computedAt,
    currency: f.currency ?? currency,
  };
}

const sum = (xs: readonly string[]) => canonical(xs.reduce((t, x) => t.plus(money(x)), money(0)));

/** Receipts, spending and net cash flow over the insight engine's 12 weeks. */
function tiles(receipts: string[], spending: string[]): KpiTile[] {
  const net = receipts.map((r, i) => canonical(money(r).minus(money(spending[i] ?? "0"))));
  const tile = (key: string, label: string, weekly: string[], riseIsGood: boolean): KpiTile => ({
    key,
    label,
    weekly,
    latest: sum(weekly.slice(-4)),
    change: periodChange(weekly),
    riseIsGood,
  });
  return [
    tile("receipts", "Customer receipts", receipts, true),
    tile("spending", "Spending", spending, false),
    tile("net", "Net cash flow", net, true),
  ];
}

/** `?horizon=` of the track record: one of VARIANCE_HORIZONS, default 1. */
function chosenHorizon(raw: string | undefined): number {
  const n = Number(raw);
  return (VARIANCE_HORIZONS as readonly number[]).includes(n) ? n : 1;
}

/** The dashboard at `/` (`?scenario=` picks the scenario drawn) and its runway threshold form. */
export function registerDashboardRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  const { db, clock } = deps;
  web.get("/", async (c) => {
    const now = clock.now();
    const view = await requireView(c, db, now);
    if (!view.org) return renderPage(c, <NoOrgPage view={view} />);
    const org = requireRight(view, "dashboard.view");
    const plan = await viewerPlan(db, {
      billingAccountId: org.billingAccountId,
      userId: view.session.userId,
    });
    if (plan === "Free") {
      return renderPage(c, <UpgradePage view={view} active="dashboard" page="the dashboard" />);
    }
    const wanted = c.req.query("scenario")?.slice(0, 100) || undefined;
    const [cash, base, chosen, brief, extras] = await Promise.all([
      cashToday(db, org.id),
      deps.dashboard.latestForecast(db, org.id, now),
      wanted ? deps.dashboard.latestForecast(db, org.id, now, wanted) : Promise.resolve(null),
      deps.dashboard.latestDailyBrief(db, org.id),
      dashboardExtras(db, org.id, now),
    ]);
    if (wanted && !chosen && !extras.scenarios.some((s) => s.id === wanted)) {
      throw new WebError(404, "Not found", "There is no such scenario in this organisation.");
    }
    const shown = chosen ?? base;
    const baseCash = cash.find((x) => x.currency === org.baseCurrency)?.total ?? "0";
    return renderPage(
      c,
      <DashboardPage
        m={{
          view,
          org,
          canManage: can(org.role, "forecast.manage"),
          cash,
          scenarios: extras.scenarios,
          forecast: shown ? toView(shown, org.baseCurrency) : null,
          runway: base ? runwayWeeks(base.weeks, extras.threshold) : null,
          threshold: extras.threshold,
          burn: burnRunway({
            cash: baseCash,
            weeklyReceipts: extras.weeklyReceipts,
            weeklySpending: extras.weeklySpending,
          }),
          tiles: tiles(extras.weeklyReceipts, extras.weeklySpending),
          notes: extras.notes,
          ageing: extras.ageing,
          financialYear: extras.financialYear,
          topCustomers: extras.topCustomers,
          topSuppliers: extras.topSuppliers,
          brief,
          ledger: extras.ledger,
          variance: extras.variance,
          horizon: chosenHorizon(c.req.query("horizon")),
          notice:
            c.req.query("notice") === "threshold"
              ? `Runway threshold set to ${extras.threshold} ${org.baseCurrency}.`
              : undefined,
        }}
      />,
    );
  });

  web.post("/settings/runway", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    const org = verifyOrgForm(c, view, form);
    requireRight(view, "forecast.manage");
    await setRunwayThreshold(db, { orgId: org.id, threshold: form.get("threshold") ?? "" });
    return c.redirect("/?notice=threshold", 303);
  });
}
