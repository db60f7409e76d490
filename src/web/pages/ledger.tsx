import type { FC } from "hono/jsx";
import type { LedgerConnectionView } from "../../services/ledger/connect.ts";
import type { SyncProgress } from "../../services/ledger/progress.ts";
import type { LedgerPanel } from "../../services/status/ledger-panel.ts";
import { CsrfField, Layout, Notice } from "../components/layout.tsx";
import { LedgerConnectionPanel } from "../components/ledger-panel.tsx";
import { formatInstant } from "../format.ts";
import type { CurrentOrg, WebView } from "../request.ts";

/**
 * `/settings/ledger`: the live ledger connection. Everyone sees its state (in `ledgerAlert`'s
 * words), the last successful sync and the last run; owners and admins also get the buttons:
 * Connect Xero (or Reconnect), the tenant picker after a grant that reaches several ledger
 * organisations, Sync now and Disconnect. While a sync runs the page refreshes itself (no script).
 */
export const LedgerPage: FC<{
  view: WebView;
  org: CurrentOrg;
  panel: LedgerPanel;
  connection: LedgerConnectionView;
  syncing: boolean;
  canManage: boolean;
  choice: { stateDigest: string; tenants: { tenantId: string; tenantName: string }[] } | null;
  notice?: string | undefined;
}> = ({ view, org, panel, connection, syncing, canManage, choice, notice }) => {
  const live = connection.tenantId !== null;
  const lastRun = connection.runs[0];
  const form = (action: string, label: string, id: string, cls?: string) => (
    <form method="post" action={action} class="inline">
      <CsrfField token={view.csrfToken} orgId={org.id} />
      <button type="submit" id={id} class={cls}>
        {label}
      </button>
    </form>
  );
  return (
    <Layout title="Ledger connection" view={view} active="ledger">
      <h1>Ledger connection</h1>
      <p class="lead">
        Cash Runway reads the organisation's ledger (Xero) with read-only access, syncs it every few
        minutes and on demand, and answers the agent API from the synced data.
      </p>
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      <LedgerConnectionPanel panel={panel} timezone={org.timezone}>
        <div class="muted small" id="ledger-state" data-state={connection.state}>
          {live
            ? `Xero organisation: ${connection.tenantName ?? connection.tenantId}`
            : "No live ledger connected."}
          {connection.state === "retrying" && connection.nextAttemptAt
            ? ` · next attempt ${formatInstant(connection.nextAttemptAt, org.timezone, { zone: true })}`
            : ""}
          {lastRun?.ledgerCalls != null
            ? ` · last run used ${lastRun.ledgerCalls} ledger calls`
            : ""}
        </div>
        {syncing ? (
          <div id="ledger-progress" role="status">
            Syncing now… this page refreshes every few seconds until the run ends.
            {progressText(panel.lastRun?.progress ?? null)}
          </div>
        ) : null}
        {canManage ? (
          <div class="actions">
            {!live
              ? form("/settings/ledger/connect", "Connect Xero", "ledger-connect")
              : connection.state === "reconnect_required"
                ? form("/settings/ledger/connect", "Reconnect", "ledger-reconnect")
                : syncing
                  ? null
                  : form("/settings/ledger/sync", "Sync now", "ledger-sync")}
            {live
              ? form("/settings/ledger/disconnect", "Disconnect", "ledger-disconnect", "secondary")
              : null}
          </div>
        ) : null}
      </LedgerConnectionPanel>
      {canManage && choice ? (
        <div class="panel" id="ledger-tenants">
          <h2>Choose the Xero organisation</h2>
          <p>The access you granted reaches several organisations; link one to {org.name}.</p>
          <form method="post" action="/settings/ledger/tenant">
            <CsrfField token={view.csrfToken} orgId={org.id} />
            <input type="hidden" name="choice" value={choice.stateDigest} />
            {choice.tenants.map((t, i) => (
              <label class="check">
                <input type="radio" name="tenantId" value={t.tenantId} checked={i === 0} />{" "}
                {t.tenantName}
              </label>
            ))}
            <button type="submit" id="ledger-pick">
              Link and sync
            </button>
          </form>
        </div>
      ) : null}
    </Layout>
  );
};

/** After "Connect Xero": on to the ledger's consent page (a link too, should the refresh not run). */
export const LedgerAuthorizePage: FC<{ view: WebView; url: string }> = ({ view, url }) => (
  <Layout title="Connect Xero" view={view} active="ledger">
    <h1>Connect Xero</h1>
    <p>
      Taking you to Xero to grant read-only access…{" "}
      <a href={url} id="ledger-authorize">
        Continue to Xero
      </a>
    </p>
  </Layout>
);

/** ` Read so far: 12,000 invoices, 350 contacts (14 ledger calls).` or nothing. */
function progressText(progress: SyncProgress | null): string {
  if (!progress) return "";
  const read = Object.entries(progress.records)
    .filter(([, n]) => n > 0)
    .map(([resource, n]) => `${n.toLocaleString("en")} ${resource}`);
  if (read.length === 0) return "";
  return ` Read so far: ${read.join(", ")} (${progress.ledgerCalls} ledger calls).`;
}
