import type { Child, FC } from "hono/jsx";
import type { LedgerPanel } from "../../services/status/ledger-panel.ts";
import { formatInstant } from "../format.ts";

const PROVIDERS: Record<string, string> = {
  xero: "Xero (live connection)",
  export_folder: "Imported export folder",
  demo: "Demo ledger",
};

/**
 * The ledger connection panel: state in the words of the API's `ledgerAlert`, the source, the
 * last successful sync and the latest run's counts and error. Kept small so the live
 * connection's page can extend it (a "Sync now" form goes in `children`).
 */
export const LedgerConnectionPanel: FC<{
  panel: LedgerPanel;
  timezone: string;
  children?: Child;
}> = ({ panel, timezone, children }) => {
  const run = panel.lastRun;
  const counts = run?.counts
    ? Object.entries(run.counts)
        .filter(([, c]) => (c.written ?? c.read ?? 0) > 0)
        .map(([k, c]) => `${c.written ?? c.read} ${k}`)
    : [];
  return (
    <div class="panel ledger" id="ledger-connection">
      <div class="label muted">Ledger connection</div>
      <div>
        <strong>
          {panel.alert
            ? panel.alert.message
            : panel.running
              ? "Syncing now…"
              : "Connected: data is up to date with the last sync."}
        </strong>
      </div>
      <div class="muted small">
        {panel.provider ? (PROVIDERS[panel.provider] ?? panel.provider) : "No source yet"}
        {" · last successful sync "}
        {formatInstant(panel.lastSuccessfulSync, timezone, { zone: true })}
      </div>
      {run ? (
        <div class="muted small" id="ledger-last-run">
          Last run {formatInstant(run.startedAt, timezone, { zone: true })}: {run.outcome}
          {counts.length > 0 ? ` (${counts.slice(0, 6).join(", ")})` : ""}
          {run.error ? ` — ${run.error}` : ""}
        </div>
      ) : null}
      {children ?? (
        <div class="small">
          <a href="/settings/ledger">Ledger connection settings</a>
        </div>
      )}
    </div>
  );
};
