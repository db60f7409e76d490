import type { FC } from "hono/jsx";
import type { AuditEventView } from "../../services/audit/list-audit-events.ts";
import type { ApiKeySummary } from "../../services/keys/key-views.ts";
import { Layout, ScopeChips } from "../components/layout.tsx";
import { displayPrefix, formatInstant } from "../format.ts";
import type { WebView } from "../request.ts";
import { kindLabel } from "./keys.tsx";

/** One key's requests, newest first, a page at a time. */
export const AuditPage: FC<{
  view: WebView;
  k: ApiKeySummary;
  events: AuditEventView[];
  nextCursor: string | null;
  firstPage: boolean;
  timezone: string;
  orgNames: Map<string, string>;
  backHref: string;
}> = ({ view, k, events, nextCursor, firstPage, timezone, orgNames, backHref }) => (
  <Layout
    title={`Audit · ${k.label}`}
    view={view}
    active={k.kind === "PARTNER" ? "partners" : "keys"}
  >
    <p>
      <a href={backHref}>← Back</a>
    </p>
    <h1>Audit: {k.label}</h1>
    <p class="lead">
      <code>{displayPrefix(k.family, k.prefix)}</code> · {kindLabel(k)} · {k.status} ·{" "}
      <ScopeChips scopes={k.scopes} />
    </p>
    <div class="grid">
      <div class="panel stat">
        <div class="label">Last used</div>
        <div>{formatInstant(k.lastUsedAt, timezone, { seconds: true, zone: true })}</div>
      </div>
      <div class="panel stat">
        <div class="label">Last sensitive access</div>
        <div>
          {k.scopes.includes("READ_SENSITIVE")
            ? formatInstant(k.lastSensitiveAccessAt, timezone, { seconds: true, zone: true })
            : "n/a (the key does not hold READ_SENSITIVE)"}
        </div>
      </div>
    </div>
    <h2>Requests (newest first)</h2>
    {events.length === 0 ? (
      <div class="empty">{firstPage ? "No requests yet." : "No older requests."}</div>
    ) : (
      <div class="table-wrap">
        <table id="audit-events">
          <thead>
            <tr>
              <th>Time ({timezone})</th>
              <th>Route</th>
              <th class="num">Status</th>
              <th>Sensitive</th>
              <th>Organisation</th>
              <th>Request id</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr>
                <td class="nowrap">{formatInstant(e.at, timezone, { seconds: true })}</td>
                <td>
                  <code>
                    {e.method} {e.route}
                  </code>
                </td>
                <td class="num">
                  {e.status}
                  {e.reason ? (
                    <div class="muted reason">
                      {e.reason === "creator_not_partner_owner"
                        ? "refused: its creator no longer owns the partner"
                        : e.reason}
                    </div>
                  ) : null}
                </td>
                <td>
                  {e.sensitive ? (
                    <span class="chip sensitive">sensitive</span>
                  ) : (
                    <span class="muted">no</span>
                  )}
                </td>
                <td>
                  {e.orgId ? (orgNames.get(e.orgId) ?? e.orgId) : <span class="muted">—</span>}
                </td>
                <td class="mono muted">{e.requestId}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <div class="pager">
      {!firstPage ? (
        <a class="button small secondary" href={`/settings/keys/${k.prefix}/audit`}>
          ← Newest
        </a>
      ) : null}
      {nextCursor ? (
        <a
          class="button small secondary"
          id="older"
          href={`/settings/keys/${k.prefix}/audit?cursor=${encodeURIComponent(nextCursor)}`}
        >
          Older →
        </a>
      ) : null}
    </div>
  </Layout>
);
