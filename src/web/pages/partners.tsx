import type { FC } from "hono/jsx";
import type { ApiKeySummary } from "../../services/keys/key-views.ts";
import { CsrfField, Layout, Notice, ScopeChips, When } from "../components/layout.tsx";
import type { PartnerRow } from "../data/partners.ts";
import { displayPrefix } from "../format.ts";
import type { WebView } from "../request.ts";

/** A partner the signed-in user runs: its clients and its keys. */
export interface OwnPartnerView {
  partner: PartnerRow;
  clients: { orgId: string; name: string; linkedAt: Date }[];
  keys: ApiKeySummary[];
  /** Names of every organisation a pinned key names (linked or not any more). */
  orgNames: Map<string, string>;
}

/** "All linked organisations" or "Pinned: A, B (B no longer linked)". */
export function reachText(
  k: ApiKeySummary,
  linked: Set<string>,
  names: Map<string, string>,
): string {
  if (k.reach === "ALL_LINKED")
    return `All linked organisations (follows links; ${linked.size} now)`;
  if (k.reach !== "PINNED") return k.reach;
  const parts = (k.pinnedOrgIds ?? []).map((id) => {
    const name = names.get(id) ?? id;
    return linked.has(id) ? name : `${name} (not linked now)`;
  });
  return `Pinned: ${parts.join(", ")}`;
}

const PartnerSection: FC<{ view: WebView; p: OwnPartnerView }> = ({ view, p }) => {
  const tz = view.org?.timezone ?? "UTC";
  const linked = new Set(p.clients.map((c) => c.orgId));
  const active = p.keys.filter((k) => k.status === "active");
  const revoked = p.keys.filter((k) => k.status === "revoked");
  return (
    <section class="panel" id={`partner-${p.partner.id}`}>
      <h2>{p.partner.name}</h2>
      <h3>Linked client organisations</h3>
      {p.clients.length === 0 ? (
        <div class="empty">No client organisations are linked yet.</div>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Organisation</th>
                <th>Id</th>
                <th>Linked</th>
              </tr>
            </thead>
            <tbody>
              {p.clients.map((c) => (
                <tr>
                  <td>{c.name}</td>
                  <td class="mono">{c.orgId}</td>
                  <td>
                    <When at={c.linkedAt} timezone={tz} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>Partner keys</h3>
      <p class="muted">
        Partner keys carry all seven capability scopes, <code>READ_SENSITIVE</code> included, with
        no per-scope choice. The only choice is their reach.
      </p>
      {active.length === 0 ? (
        <div class="empty">No active partner keys.</div>
      ) : (
        <div class="table-wrap">
          <table class="partner-keys">
            <thead>
              <tr>
                <th>Label</th>
                <th>Prefix</th>
                <th>Reach</th>
                <th>Scopes</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Last sensitive access</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {active.map((k) => (
                <tr data-prefix={k.prefix}>
                  <td>{k.label}</td>
                  <td>
                    <code>{displayPrefix(k.family, k.prefix)}</code>
                  </td>
                  <td>{reachText(k, linked, p.orgNames)}</td>
                  <td>
                    <ScopeChips scopes={k.scopes} />
                  </td>
                  <td>
                    <When at={k.createdAt} timezone={tz} />
                  </td>
                  <td>
                    <When at={k.lastUsedAt} timezone={tz} />
                  </td>
                  <td>
                    <When at={k.lastSensitiveAccessAt} timezone={tz} />
                  </td>
                  <td>
                    <a class="button small secondary" href={`/settings/keys/${k.prefix}/audit`}>
                      Audit
                    </a>{" "}
                    <a class="button small danger" href={`/settings/keys/${k.prefix}/revoke`}>
                      Revoke
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoked.length > 0 ? (
        <details>
          <summary>Revoked partner keys ({revoked.length})</summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Label</th>
                  <th>Prefix</th>
                  <th>Reach</th>
                  <th>Revoked</th>
                </tr>
              </thead>
              <tbody>
                {revoked.map((k) => (
                  <tr data-prefix={k.prefix}>
                    <td>{k.label}</td>
                    <td>
                      <code>{displayPrefix(k.family, k.prefix)}</code>
                    </td>
                    <td>{reachText(k, linked, p.orgNames)}</td>
                    <td>
                      <When at={k.revokedAt} timezone={tz} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ) : null}
      <h3>Create a partner key</h3>
      <form method="post" action={`/settings/partners/${p.partner.id}/keys`}>
        <CsrfField token={view.csrfToken} />
        <label for={`label-${p.partner.id}`}>Label</label>
        <input id={`label-${p.partner.id}`} name="label" type="text" maxlength={200} required />
        <fieldset>
          <legend>Reach</legend>
          <label class="check">
            <input type="radio" name="reach" value="ALL_LINKED" checked />
            All linked organisations (later links extend it)
          </label>
          <label class="check">
            <input type="radio" name="reach" value="PINNED" disabled={p.clients.length === 0} />
            Only these organisations (later links do not extend it):
          </label>
          {p.clients.map((c) => (
            <label class="check">
              <input type="checkbox" name="pinned" value={c.orgId} /> {c.name}
            </label>
          ))}
        </fieldset>
        <p>
          <button type="submit">Create partner key</button>
        </p>
      </form>
    </section>
  );
};

/** Settings → Partners. */
export const PartnersPage: FC<{
  view: WebView;
  linkedToOrg: { partnerId: string; name: string; linkedAt: Date }[] | null;
  own: OwnPartnerView[];
  notice?: string | undefined;
  error?: string | undefined;
}> = ({ view, linkedToOrg, own, notice, error }) => (
  <Layout title="Partners" view={view} active="partners">
    <h1>Partners</h1>
    <p class="lead">
      Advisory partners (accounting practices) read their linked client organisations with partner
      keys.
    </p>
    {notice ? <Notice kind="ok">{notice}</Notice> : null}
    {error ? <Notice kind="error">{error}</Notice> : null}
    {linkedToOrg && view.org ? (
      <div class="panel">
        <h2>Partners linked to {view.org.name}</h2>
        {linkedToOrg.length === 0 ? (
          <div class="empty">No partner is linked to this organisation.</div>
        ) : (
          <div class="table-wrap">
            <table id="linked-partners">
              <thead>
                <tr>
                  <th>Partner</th>
                  <th>Linked</th>
                </tr>
              </thead>
              <tbody>
                {linkedToOrg.map((p) => (
                  <tr>
                    <td>{p.name}</td>
                    <td>
                      <When at={p.linkedAt} timezone={view.org?.timezone ?? "UTC"} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p class="muted">Partner keys reaching this organisation read its sensitive data too.</p>
      </div>
    ) : null}
    {own.length === 0 ? (
      <div class="empty">You do not run a partner practice.</div>
    ) : (
      own.map((p) => <PartnerSection view={view} p={p} />)
    )}
  </Layout>
);
