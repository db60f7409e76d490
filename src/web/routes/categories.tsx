import type { Hono } from "hono";
import type { AppEnv } from "../../http/env.ts";
import {
  listAccountCategories,
  PNL_LABELS,
  setAccountCategory,
} from "../../services/categories/categories.ts";
import { recomputeForecasts } from "../../services/forecast/recompute-forecasts.ts";
import { flagTarget } from "../../services/sensitivity/list-flags.ts";
import { setSensitive } from "../../services/sensitivity/set-sensitive.ts";
import { can } from "../../services/web-auth/roles.ts";
import type { WebDeps } from "../deps.ts";
import { CategoriesPage } from "../pages/categories.tsx";
import { ConfirmSensitivePage, sensitiveChangeConfirmed } from "../pages/confirm-sensitive.tsx";
import { renderPage } from "../render.ts";
import { readForm, requireRight, requireView, verifyOrgForm, WebError } from "../request.ts";

const PAGE_SIZE = 25;

/** A same-page return path (search and page kept) with a notice. */
function backWith(back: string | undefined, notice: string): string {
  const url = new URL(
    back?.startsWith("/settings/categories") ? back : "/settings/categories",
    "http://x",
  );
  if (url.pathname !== "/settings/categories") return "/settings/categories";
  url.searchParams.set("notice", notice.slice(0, 300));
  return `${url.pathname}${url.search}`;
}

/** Settings → Account categories (gap facts §2.4). */
export function registerCategoryRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  const { db, clock } = deps;

  web.get("/settings/categories", async (c) => {
    const view = await requireView(c, db, clock.now());
    const org = requireRight(view, "sensitive.view");
    const q = (c.req.query("q") ?? "").slice(0, 200);
    const requested = Number.parseInt(c.req.query("page") ?? "1", 10);
    const page = Number.isFinite(requested) && requested >= 1 ? Math.min(requested, 100_000) : 1;
    const list = await listAccountCategories(db, org.id, {
      q,
      offset: (page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
    return renderPage(
      c,
      <CategoriesPage
        view={view}
        org={org}
        rows={list.rows}
        total={list.total}
        q={q}
        page={page}
        pageSize={PAGE_SIZE}
        canManage={can(org.role, "forecast.manage")}
        canFlag={can(org.role, "sensitive.manage")}
        notice={c.req.query("notice")?.slice(0, 300)}
      />,
    );
  });

  web.post("/settings/categories", async (c) => {
    const now = clock.now();
    const view = await requireView(c, db, now);
    const form = await readForm(c);
    const org = verifyOrgForm(c, view, form);
    const accountId = form.get("accountId") ?? "";
    if (!accountId) throw new WebError(400, "Bad request", "The form is incomplete.");
    const included = form.get("included");
    const position = form.get("position");
    const said: string[] = [];
    // A change of the sensitive flag, the session's first, asks first: nothing is saved until
    // the owner confirms (the confirmation re-posts the whole row).
    if (can(org.role, "sensitive.manage") && !sensitiveChangeConfirmed(c, view, form)) {
      const flag = form.get("sensitive") === "on";
      const target = await flagTarget(db, org.id, "account", accountId);
      if (target && target.isSensitive !== flag) {
        const back = form.get("back") ?? "/settings/categories";
        const fields: [string, string][] = [["accountId", accountId]];
        if (included !== undefined) fields.push(["included", included]);
        if (position !== undefined) fields.push(["position", position]);
        if (flag) fields.push(["sensitive", "on"]);
        fields.push(["back", back]);
        return renderPage(
          c,
          <ConfirmSensitivePage
            view={view}
            active="categories"
            action="/settings/categories"
            fields={fields}
            what={`Account ${target.name}`}
            flag={flag}
            cancel={back.startsWith("/settings/categories") ? back : "/settings/categories"}
          />,
        );
      }
    }
    if (included !== undefined || position !== undefined) {
      requireRight(view, "forecast.manage");
      if (included !== undefined && !["default", "yes", "no"].includes(included)) {
        throw new WebError(400, "Bad request", "Burn / revenue must be default, yes or no.");
      }
      await setAccountCategory(db, {
        orgId: org.id,
        accountId,
        included:
          included === undefined
            ? undefined
            : included === "default"
              ? "default"
              : included === "yes",
        position,
      });
    }
    let name = accountId;
    if (can(org.role, "sensitive.manage")) {
      // An unticked box sends nothing: the form always carries the flag when it shows the box.
      const flagged = await setSensitive(db, {
        orgId: org.id,
        target: { account: accountId },
        sensitive: form.get("sensitive") === "on",
      });
      name = flagged.name;
      said.push(flagged.isSensitive ? "sensitive" : "not sensitive");
    }
    const row = (
      await listAccountCategories(db, org.id, { q: name, offset: 0, limit: 100 })
    ).rows.find((r) => r.id === accountId);
    if (row) {
      said.unshift(
        row.included ? "included in burn" : "excluded from burn",
        PNL_LABELS[row.position],
      );
    }
    // The forecast reads inclusion at its input: recompute so every scenario reflects it now.
    if (included !== undefined) await recomputeForecasts(db, { orgId: org.id, now });
    c.get("logger").info(
      { orgId: org.id, accountId, included, position, userId: view.session.userId },
      "web account category",
    );
    return c.redirect(
      backWith(form.get("back"), `Saved ${row?.name ?? name}: ${said.join(", ")}.`),
      303,
    );
  });
}
