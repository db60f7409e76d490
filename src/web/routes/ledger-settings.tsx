import type { Hono } from "hono";
import type { AppEnv } from "../../http/env.ts";
import {
  chooseTenant,
  disconnectLedger,
  LedgerConnectError,
  ledgerConnectionView,
  liveConnectionOf,
  pendingTenantChoice,
  startAuthorization,
} from "../../services/ledger/connect.ts";
import type { LedgerDeps } from "../../services/ledger/deps.ts";
import { getLedgerPanel } from "../../services/status/ledger-panel.ts";
import { can } from "../../services/web-auth/roles.ts";
import { digestToken } from "../../services/web-auth/tokens.ts";
import type { WebDeps } from "../deps.ts";
import { LedgerAuthorizePage, LedgerPage } from "../pages/ledger.tsx";
import { renderPage } from "../render.ts";
import {
  readForm,
  readSessionCookie,
  requireRight,
  requireView,
  verifyOrgForm,
  type WebContext,
  WebError,
} from "../request.ts";
import { isSyncing, requestSync } from "./ledger.tsx";

const NOTICES: Record<string, string> = {
  connected: "Connected to Xero: the first sync has started.",
  syncing: "Sync started.",
  disconnected:
    "Disconnected: the ledger's data stays here, read-only, and is no longer updated. Xero's grant is ended.",
};

/** The web session's digest: what binds an authorization's `state` to this browser. */
function sessionDigestOf(c: WebContext): string {
  const cookie = readSessionCookie(c);
  if (!cookie) throw new WebError(401, "Signed out", "Sign in again.");
  return digestToken(cookie);
}

/** A refused connect step as a 400 page in the step's own words. */
function refused(e: unknown): never {
  if (e instanceof LedgerConnectError) throw new WebError(400, "Ledger not connected", e.message);
  throw e;
}

/** Settings → Ledger: the live connection (issue 20; the OAuth callback is in routes/ledger.tsx). */
export function registerLedgerSettingsRoutes(
  web: Hono<AppEnv>,
  deps: WebDeps,
  ledger: LedgerDeps,
): void {
  const { db, clock } = deps;

  const startSync = (c: WebContext, orgId: string) => {
    void requestSync(ledger, orgId).catch((err: unknown) =>
      c.get("logger").error({ err, orgId }, "ledger sync from the settings screen failed"),
    );
  };

  web.get("/settings/ledger", async (c) => {
    const now = clock.now();
    const view = await requireView(c, db, now);
    const org = requireRight(view, "dashboard.view");
    const canManage = can(org.role, "ledger.manage");
    const [panel, connection, choice] = await Promise.all([
      getLedgerPanel(db, org.id, now),
      ledgerConnectionView(ledger, org.id, 5, now),
      canManage
        ? pendingTenantChoice(ledger, { orgId: org.id, sessionDigest: sessionDigestOf(c) })
        : null,
    ]);
    const syncing = isSyncing(org.id) || panel.running;
    // Progress without script: the page reloads itself until the run ends.
    if (syncing) c.header("Refresh", "2; url=/settings/ledger");
    return renderPage(
      c,
      <LedgerPage
        view={view}
        org={org}
        panel={panel}
        connection={connection}
        syncing={syncing}
        canManage={canManage}
        choice={choice}
        notice={NOTICES[c.req.query("notice") ?? ""]}
      />,
    );
  });

  // Connect and Reconnect: a new authorization bound to this session, then Xero's consent page.
  web.post("/settings/ledger/connect", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "ledger.manage");
    const { authorizationUrl } = await startAuthorization(ledger, {
      orgId: org.id,
      userId: view.session.userId,
      sessionDigest: sessionDigestOf(c),
    });
    c.get("logger").info({ orgId: org.id, userId: view.session.userId }, "web ledger connect");
    // Not a 303: the page's CSP (form-action 'self') would stop a form's redirect to Xero.
    c.header("Refresh", `0; url=${authorizationUrl}`);
    return renderPage(c, <LedgerAuthorizePage view={view} url={authorizationUrl} />);
  });

  web.post("/settings/ledger/tenant", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "ledger.manage");
    const stateDigest = form.get("choice") ?? "";
    const tenantId = form.get("tenantId") ?? "";
    if (!stateDigest || !tenantId) throw new WebError(400, "Bad request", "Pick an organisation.");
    await chooseTenant(ledger, {
      stateDigest,
      sessionDigest: sessionDigestOf(c),
      orgId: org.id,
      tenantId,
    }).catch(refused);
    startSync(c, org.id);
    return c.redirect("/settings/ledger?notice=connected", 303);
  });

  web.post("/settings/ledger/sync", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "ledger.manage");
    if (!(await liveConnectionOf(ledger, org.id))) {
      throw new WebError(400, "Not connected", "Connect Xero first.");
    }
    startSync(c, org.id);
    return c.redirect("/settings/ledger?notice=syncing", 303);
  });

  web.post("/settings/ledger/disconnect", async (c) => {
    const view = await requireView(c, db, clock.now());
    const form = await readForm(c);
    verifyOrgForm(c, view, form);
    const org = requireRight(view, "ledger.manage");
    await disconnectLedger(ledger, { orgId: org.id }).catch(refused);
    c.get("logger").info({ orgId: org.id, userId: view.session.userId }, "web ledger disconnect");
    return c.redirect("/settings/ledger?notice=disconnected", 303);
  });
}
