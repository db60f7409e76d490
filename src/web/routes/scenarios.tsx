import type { Hono } from "hono";
import type { ScenarioAssumptions } from "../../domain/forecasting/types.ts";
import type { AppEnv } from "../../http/env.ts";
import { viewerPlan } from "../../services/billing/billing-view.ts";
import { InvalidParameterError, NotFoundError } from "../../services/errors.ts";
import { getForecast } from "../../services/forecast/get-forecast.ts";
import { recomputeForecasts } from "../../services/forecast/recompute-forecasts.ts";
import {
  createCustomScenario,
  deleteCustomScenario,
  editCustomScenario,
  listScenarios,
} from "../../services/forecast/scenarios.ts";
import { systemContext } from "../../services/system-context.ts";
import { can } from "../../services/web-auth/roles.ts";
import { assumptionsFromForm } from "../data/scenario-form.ts";
import type { WebDeps } from "../deps.ts";
import { type ScenarioRow, ScenariosPage } from "../pages/scenarios.tsx";
import { UpgradePage } from "../pages/upgrade.tsx";
import { renderPage } from "../render.ts";
import {
  readForm,
  requireRight,
  requireView,
  verifyOrgForm,
  type WebContext,
  WebError,
  type WebView,
} from "../request.ts";

const NOTICES: Record<string, string> = {
  created: "Scenario created and every forecast recomputed.",
  updated: "Scenario saved and every forecast recomputed.",
  deleted: "Scenario deleted.",
};

/** `/settings/scenarios`: list, create, edit and delete, through the `scenario` commands' services. */
export function registerScenarioRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  const { db, clock } = deps;

  const render = async (
    c: WebContext,
    view: WebView,
    extra: { notice?: string | undefined; error?: string; status?: 200 | 400 | 404 } = {},
  ) => {
    const now = clock.now();
    const org = requireRight(view, "dashboard.view");
    const ctx = await systemContext(db, org.id, now);
    const scenarios = await listScenarios(db, org.id);
    const rows: ScenarioRow[] = [];
    for (const s of scenarios) {
      let forecast = null;
      try {
        forecast = await getForecast({ ctx, scenarioId: s.id });
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
      rows.push({
        id: s.id,
        name: s.name,
        kind: s.kind,
        assumptions: s.assumptions,
        computedAt: forecast?.computedAt ?? null,
        weeks: forecast
          ? forecast.weeks.map((w) => ({ weekStart: w.weekStart, closing: w.closing }))
          : null,
      });
    }
    return renderPage(
      c,
      <ScenariosPage
        view={view}
        org={org}
        rows={rows}
        canManage={can(org.role, "forecast.manage")}
        notice={extra.notice}
        {...(extra.error ? { error: extra.error } : {})}
      />,
      extra.status ?? 200,
    );
  };

  /** A refused value answers the page again with the reason (400), nothing changed. */
  const refusing = async (c: WebContext, view: WebView, act: () => Promise<void>) => {
    try {
      await act();
      return null;
    } catch (err) {
      if (err instanceof InvalidParameterError) {
        return render(c, view, { error: `Nothing was saved: ${err.message}.`, status: 400 });
      }
      throw err;
    }
  };

  /**
   * Scenarios are an analysis page: a Free-plan member gets the Upgrade screen, for the page
   * and for every change posted to it (403 then: nothing is created, changed or deleted).
   */
  const upgradeIfFree = async (c: WebContext, view: WebView, status: 200 | 403) => {
    const org = requireRight(view, "dashboard.view");
    const plan = await viewerPlan(db, {
      billingAccountId: org.billingAccountId,
      userId: view.session.userId,
    });
    if (plan !== "Free") return null;
    return renderPage(c, <UpgradePage view={view} active="scenarios" page="scenarios" />, status);
  };

  web.get("/settings/scenarios", async (c) => {
    const view = await requireView(c, db, clock.now());
    const upgrade = await upgradeIfFree(c, view, 200);
    if (upgrade) return upgrade;
    return render(c, view, { notice: NOTICES[c.req.query("notice") ?? ""] });
  });

  web.post("/settings/scenarios", async (c) => {
    const now = clock.now();
    const view = await requireView(c, db, now);
    const form = await readForm(c);
    const org = verifyOrgForm(c, view, form);
    requireRight(view, "forecast.manage");
    const upgrade = await upgradeIfFree(c, view, 403);
    if (upgrade) return upgrade;
    const refused = await refusing(c, view, async () => {
      await createCustomScenario(db, {
        orgId: org.id,
        name: form.get("name") ?? "",
        assumptions: assumptionsFromForm(form, "create") as ScenarioAssumptions,
        now,
      });
    });
    if (refused) return refused;
    await recomputeForecasts(db, { orgId: org.id, now });
    return c.redirect("/settings/scenarios?notice=created", 303);
  });

  web.post("/settings/scenarios/:id", async (c) => {
    const now = clock.now();
    const view = await requireView(c, db, now);
    const form = await readForm(c);
    const org = verifyOrgForm(c, view, form);
    requireRight(view, "forecast.manage");
    const upgrade = await upgradeIfFree(c, view, 403);
    if (upgrade) return upgrade;
    const id = c.req.param("id");
    const current = (await listScenarios(db, org.id)).find((s) => s.id === id);
    if (!current) throw new WebError(404, "Not found", "There is no such scenario.");
    const refused = await refusing(c, view, async () => {
      await editCustomScenario(db, {
        orgId: org.id,
        scenarioId: id,
        name: form.get("name") ?? current.name,
        assumptions: assumptionsFromForm(form, "edit", current.assumptions),
        now,
      });
    });
    if (refused) return refused;
    await recomputeForecasts(db, { orgId: org.id, now });
    return c.redirect(`/settings/scenarios?notice=updated#scenario-${id}`, 303);
  });

  web.post("/settings/scenarios/:id/delete", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    const org = verifyOrgForm(c, view, form);
    requireRight(view, "forecast.manage");
    const upgrade = await upgradeIfFree(c, view, 403);
    if (upgrade) return upgrade;
    if (form.get("confirm") !== "yes") {
      return render(c, view, { error: "Tick the box to confirm the deletion.", status: 400 });
    }
    const refused = await refusing(c, view, () =>
      deleteCustomScenario(db, { orgId: org.id, scenarioId: c.req.param("id") }),
    );
    if (refused) return refused;
    return c.redirect("/settings/scenarios?notice=deleted", 303);
  });
}
