import type { Hono } from "hono";
import type { AppEnv } from "../../http/env.ts";
import { forecastSeries } from "../dashboard/forecast-series.ts";
import { cashToday } from "../data/dashboard.ts";
import type { WebDeps } from "../deps.ts";
import { DashboardPage, NoOrgPage } from "../pages/dashboard.tsx";
import { renderPage } from "../render.ts";
import { requireRight, requireView } from "../request.ts";

/** The dashboard at `/`. */
export function registerDashboardRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  const { db, clock } = deps;
  web.get("/", async (c) => {
    const now = clock.now();
    const view = await requireView(c, db, now);
    if (!view.org) return renderPage(c, <NoOrgPage view={view} />);
    const org = requireRight(view, "dashboard.view");
    const [cash, forecast, brief] = await Promise.all([
      cashToday(db, org.id),
      deps.dashboard.latestForecast(db, org.id, now),
      deps.dashboard.latestDailyBrief(db, org.id),
    ]);
    return renderPage(
      c,
      <DashboardPage
        view={view}
        org={org}
        cash={cash}
        forecast={
          forecast
            ? {
                series: forecastSeries(forecast),
                computedAt: forecast.computedAt,
                currency: forecast.currency ?? org.baseCurrency,
              }
            : null
        }
        brief={brief}
      />,
    );
  });
}
