import type { Hono } from "hono";
import type { AppEnv } from "../../http/env.ts";
import { loadBilling, usageInCurrentWindow } from "../../services/billing/billing-view.ts";
import { setBilling } from "../../services/billing/set-billing.ts";
import { InvalidParameterError } from "../../services/errors.ts";
import {
  flagTarget,
  listAccountFlags,
  listContactFlags,
} from "../../services/sensitivity/list-flags.ts";
import { setSensitive } from "../../services/sensitivity/set-sensitive.ts";
import { can } from "../../services/web-auth/roles.ts";
import type { WebDeps } from "../deps.ts";
import { BillingPage } from "../pages/billing.tsx";
import { ConfirmSensitivePage, sensitiveChangeConfirmed } from "../pages/confirm-sensitive.tsx";
import { SensitivePage } from "../pages/sensitive.tsx";
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

const CONTACT_PAGE_SIZE = 25;
const ACCOUNT_PAGE_SIZE = 25;

/** A same-page return path for the sensitive flags (query and anchor kept), else the page itself. */
function sensitiveBack(back: string | undefined, notice: string): string {
  const url = new URL(
    back?.startsWith("/settings/sensitive") ? back : "/settings/sensitive",
    "http://x",
  );
  if (url.pathname !== "/settings/sensitive") return `/settings/sensitive?notice=${notice}`;
  url.searchParams.set("notice", notice);
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Sensitive flags and billing (partners: routes/partners.tsx). */
export function registerSettingsRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  const { db, clock } = deps;

  web.get("/settings/sensitive", async (c) => {
    const view = await requireView(c, db, clock.now());
    const org = requireRight(view, "sensitive.view");
    const q = (c.req.query("q") ?? "").slice(0, 200);
    const aq = (c.req.query("aq") ?? "").slice(0, 200);
    const pageOf = (name: string) => {
      const requested = Number.parseInt(c.req.query(name) ?? "1", 10);
      return Number.isFinite(requested) && requested >= 1 ? Math.min(requested, 100_000) : 1;
    };
    const page = pageOf("page");
    const apage = pageOf("apage");
    const [accountPage, contactPage] = await Promise.all([
      listAccountFlags(db, org.id, {
        q: aq,
        offset: (apage - 1) * ACCOUNT_PAGE_SIZE,
        limit: ACCOUNT_PAGE_SIZE,
      }),
      listContactFlags(db, org.id, {
        q,
        offset: (page - 1) * CONTACT_PAGE_SIZE,
        limit: CONTACT_PAGE_SIZE,
      }),
    ]);
    const code = c.req.query("notice");
    const notice =
      code === "flagged"
        ? "Flag set: API keys without READ_SENSITIVE no longer see it."
        : code === "cleared"
          ? "Flag cleared: every key with the right scope sees it again."
          : undefined;
    return renderPage(
      c,
      <SensitivePage
        view={view}
        org={org}
        canManage={can(org.role, "sensitive.manage")}
        accounts={accountPage.rows}
        accountTotal={accountPage.total}
        aq={aq}
        apage={apage}
        accountPageSize={ACCOUNT_PAGE_SIZE}
        contacts={contactPage.rows}
        contactTotal={contactPage.total}
        q={q}
        page={page}
        pageSize={CONTACT_PAGE_SIZE}
        notice={notice}
      />,
    );
  });

  web.post("/settings/sensitive", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "sensitive.manage");
    const kind = form.get("kind");
    const id = form.get("id") ?? "";
    const value = form.get("sensitive");
    if ((kind !== "account" && kind !== "contact") || !id || (value !== "on" && value !== "off")) {
      throw new WebError(400, "Bad request", "The form is incomplete.");
    }
    // The session's first change asks first (no script: a page re-posting the same form).
    if (!sensitiveChangeConfirmed(c, view, form)) {
      const target = await flagTarget(db, org.id, kind, id);
      if (target && target.isSensitive !== (value === "on")) {
        const back = form.get("back") ?? "/settings/sensitive";
        return renderPage(
          c,
          <ConfirmSensitivePage
            view={view}
            active="sensitive"
            action="/settings/sensitive"
            fields={[
              ["kind", kind],
              ["id", id],
              ["sensitive", value],
              ["back", back],
            ]}
            what={`${kind === "account" ? "Account" : "Contact"} ${target.name}`}
            flag={value === "on"}
            cancel={back.startsWith("/settings/sensitive") ? back : "/settings/sensitive"}
          />,
        );
      }
    }
    // Scoped to the current organisation: another organisation's id is simply not found.
    const result = await setSensitive(db, {
      orgId: org.id,
      target: kind === "account" ? { account: id } : { contact: id },
      sensitive: value === "on",
    });
    c.get("logger").info(
      {
        orgId: org.id,
        kind,
        id: result.id,
        sensitive: result.isSensitive,
        userId: view.session.userId,
      },
      "web sensitive flag",
    );
    return c.redirect(
      sensitiveBack(form.get("back"), result.isSensitive ? "flagged" : "cleared"),
      303,
    );
  });

  const renderBilling = async (
    c: WebContext,
    view: WebView,
    extra: { notice?: string | undefined; error?: string; status?: 200 | 400 } = {},
  ) => {
    const now = clock.now();
    const org = requireRight(view, "billing.view");
    const billing = org.billingAccountId
      ? await loadBilling(db, org.billingAccountId, now)
      : undefined;
    const usage = billing
      ? await usageInCurrentWindow(db, { billing, orgId: org.id, now })
      : undefined;
    return renderPage(
      c,
      <BillingPage
        view={view}
        org={org}
        billing={billing}
        usage={usage}
        canManage={can(org.role, "billing.manage") && billing?.ownerUserId === view.session.userId}
        notice={extra.notice}
        error={extra.error}
      />,
      extra.status ?? 200,
    );
  };

  web.get("/settings/billing", async (c) => {
    const view = await requireView(c, db, clock.now());
    const code = c.req.query("notice");
    return renderBilling(c, view, {
      notice: code === "saved" ? "Billing settings saved." : undefined,
    });
  });

  web.post("/settings/billing/auto-top-up", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "billing.manage");
    const value = form.get("autoTopUp");
    if (!org.billingAccountId || (value !== "on" && value !== "off")) {
      throw new WebError(400, "Bad request", "Nothing to change.");
    }
    // The billing account may pay for several organisations: only its own owner changes it.
    const billing = await loadBilling(db, org.billingAccountId, clock.now());
    if (billing?.ownerUserId !== view.session.userId) {
      throw new WebError(
        403,
        "Not allowed",
        "Only the billing account's owner can change billing settings.",
      );
    }
    // Through the billing service, so the change is recorded as a billing event, and a state
    // that could never buy a pack is refused with its reason.
    try {
      await setBilling(db, { orgId: org.id, autoTopUp: value === "on" }, clock.now());
    } catch (err) {
      if (err instanceof InvalidParameterError) {
        return renderBilling(c, view, { error: `Not changed: ${err.message}.`, status: 400 });
      }
      throw err;
    }
    c.get("logger").info(
      { orgId: org.id, autoTopUp: value, userId: view.session.userId },
      "web billing change",
    );
    return c.redirect("/settings/billing?notice=saved", 303);
  });
}
