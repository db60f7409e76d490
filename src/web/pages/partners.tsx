import type { FC } from "hono/jsx";
import type { PartnerKey } from "../../services/keys/govern-keys.ts";
import type { ApiKeySummary } from "../../services/keys/key-views.ts";
import type { PartnerOwner } from "../../services/partners/partners.ts";
import { CsrfField, Layout, Notice, ScopeChips, When } from "../components/layout.tsx";
import { displayPrefix } from "../format.ts";
import type { WebView } from "../request.ts";

/** A partner the signed-in user owns: its owners, clients and keys. */
export interface OwnPartnerView {
  partner: { id: string; name: string };
  owners: PartnerOwner[];
  clients: { orgId: string; name: string; linkedAt: Date }[];
  keys: PartnerKey[];
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

/** The partner's owners, with add, remove and transfer. */
const OwnersPanel: FC<{ view: WebView; p: OwnPartnerView }> = ({ view, p }) => {
  const tz = view.org?.timezone ?? "UTC";
  const me = view.session.userId;
  return (
    <div>
      <h3>Owners</h3>
      <p class="muted">
        Owners create and revoke the partner's keys and decide who owns it. A partner key works only
        while the owner who created it still owns the partner: removing an owner stops their keys at
        once (create replacements first).
      </p>
      <div class="table-wrap">
        <table class="partner-owners">
          <thead>
            <tr>
              <th>Owner</th>
              <th>Since</th>
              <th>Their keys</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {p.owners.map((o) => {
              const theirs = p.keys.filter(
                (k) => k.createdByUserId === o.userId && k.status === "active",
              ).length;
              return (
                <tr data-owner={o.email}>
                  <td>
                    {o.email}
                    {o.userId === me ? <span class="muted"> (you)</span> : null}
                  </td>
                  <td>
                    <When at={o.since} timezone={tz} />
                  </td>
                  <td>{theirs}</td>
                  <td>
                    {p.owners.length > 1 ? (
                      <form
                        method="post"
                        action={`/settings/partners/${p.partner.id}/owners/${o.userId}/remove`}
                        class="inline"
                      >
                        <CsrfField token={view.csrfToken} />
                        <button
                          type="submit"
                          class="small danger"
                          aria-label={`Remove ${o.email} as an owner`}
                        >
                          Remove
                          {theirs > 0 ? ` (stops ${theirs} key${theirs === 1 ? "" : "s"})` : ""}
                        </button>
                      </form>
                    ) : (
                      <span class="muted">the only owner</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <form method="post" action={`/settings/partners/${p.partner.id}/owners`} class="row">
        <CsrfField token={view.csrfToken} />
        <div>
          <label for={`owner-${p.partner.id}`}>Add an owner (an existing user's email)</label>
          <input id={`owner-${p.partner.id}`} name="email" type="email" required />
        </div>
        <button type="submit" class="secondary">
          Add owner
        </button>
      </form>
      <form method="post" action={`/settings/partners/${p.partner.id}/transfer`} class="row">
        <CsrfField token={view.csrfToken} />
        <div>
          <label for={`transfer-${p.partner.id}`}>Hand the partner over to</label>
          <input id={`transfer-${p.partner.id}`} name="email" type="email" required />
        </div>
        <button type="submit" class="danger">
          Transfer and leave
        </button>
      </form>
      <p class="muted">
        Transferring makes that user an owner and removes you in one step: the keys you created stop
        working.
      </p>
    </div>
  );
};

/** Active, stopped (creator no longer an owner) or revoked, and which clients revoked it. */
const KeyStatus: FC<{ k: PartnerKey }> = ({ k }) => (
  <span>
    {k.status === "revoked" ? (
      <span class="chip off">revoked</span>
    ) : k.stoppedBecause ? (
      <span>
        <span class="chip warn">stopped</span>
        <div class="muted">its creator no longer owns the partner</div>
      </span>
    ) : (
      <span class="chip ok">active</span>
    )}
    {k.revokedFor.length > 0 ? (
      <div class="muted">Revoked by {k.revokedFor.map((r) => r.orgName).join(", ")} for itself</div>
    ) : null}
  </span>
);

const PartnerSection: FC<{ view: WebView; p: OwnPartnerView }> = ({ view, p }) => {
  const tz = view.org?.timezone ?? "UTC";
  const linked = new Set(p.clients.map((c) => c.orgId));
  const active = p.keys.filter((k) => k.status === "active");
  const revoked = p.keys.filter((k) => k.status === "revoked");
  return (
    <section class="panel" id={`partner-${p.partner.id}`}>
      <h2>{p.partner.name}</h2>
      <p class="muted">
        Partner id <code>{p.partner.id}</code>: a client's owner or admin links the partner with it.
      </p>
      <OwnersPanel view={view} p={p} />
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
                <th>Created by</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Last sensitive access</th>
                <th>Status</th>
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
                    <ScopeChips scopes={k.scopes} partner />
                  </td>
                  <td>{k.creatorEmail}</td>
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
                    <KeyStatus k={k} />
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
  /** Owners and admins of the current organisation link and unlink partners. */
  canManageLinks: boolean;
  own: OwnPartnerView[];
  notice?: string | undefined;
  error?: string | undefined;
}> = ({ view, linkedToOrg, canManageLinks, own, notice, error }) => (
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
                  <th>Id</th>
                  <th>Linked</th>
                  {canManageLinks ? <th>Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {linkedToOrg.map((p) => (
                  <tr data-partner={p.partnerId}>
                    <td>{p.name}</td>
                    <td class="mono">{p.partnerId}</td>
                    <td>
                      <When at={p.linkedAt} timezone={view.org?.timezone ?? "UTC"} />
                    </td>
                    {canManageLinks ? (
                      <td>
                        <form
                          method="post"
                          action={`/settings/partners/${p.partnerId}/unlink`}
                          class="inline"
                        >
                          <CsrfField token={view.csrfToken} orgId={view.org?.id} />
                          <button
                            type="submit"
                            class="small danger"
                            aria-label={`Unlink ${p.name}`}
                          >
                            Unlink
                          </button>
                        </form>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {canManageLinks ? (
          <form method="post" action="/settings/partners/link" class="row" id="link-partner">
            <CsrfField token={view.csrfToken} orgId={view.org?.id} />
            <div>
              <label for="partner-id">Link a partner (its id, from the partner)</label>
              <input id="partner-id" name="partnerId" type="text" maxlength={64} required />
            </div>
            <button type="submit" class="secondary">
              Link partner
            </button>
          </form>
        ) : null}
        <p class="muted">
          A linked partner's keys read this organisation
          {view.org?.restrictSensitiveToOrgKeys
            ? " without its sensitive data (this organisation allows READ_SENSITIVE only on organisation keys)."
            : ", its sensitive data too (an owner can forbid that on the API keys page)."}{" "}
          Unlinking stops them at once.
        </p>
      </div>
    ) : null}
    {own.length === 0 ? (
      <div class="empty">You do not run a partner practice.</div>
    ) : (
      own.map((p) => <PartnerSection view={view} p={p} />)
    )}
  </Layout>
);
