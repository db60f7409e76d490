import type { FC } from "hono/jsx";
import { SCOPES, type Scope } from "../../domain/scopes.ts";
import type { ApiKeySummary } from "../../services/keys/key-views.ts";
import { CsrfField, Layout, Notice, ScopeChips, When } from "../components/layout.tsx";
import { displayPrefix } from "../format.ts";
import type { CurrentOrg, WebView } from "../request.ts";

/** What each capability scope grants (the spec's table), for the create form. */
export const SCOPE_HELP: Readonly<Record<Scope, string>> = {
  READ_BANK: "Bank balances, reconciled and statement.",
  READ_FORECAST: "Cash position and the 13-week forecast.",
  READ_PIPELINE: "Pipeline and projected revenue.",
  READ_INVOICES: "Invoices, bills, credit notes (with optional line items).",
  READ_CONTACTS: "Contact list and single-contact drill.",
  READ_SUMMARY: "Daily summary, revenue, expenses, contacts and cohort summaries.",
  READ_ACCOUNTS: "Account balances.",
  READ_PURCHASE_ORDERS: "Purchase orders.",
  READ_SENSITIVE: "Lifts sensitive-data gating.",
};

/** The capability scopes offered as checkboxes; READ_SENSITIVE has its own separate box. */
export const PICKABLE_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== "READ_SENSITIVE");

/** The values a refused create form comes back with. */
export interface CreateKeyForm {
  kind: "ORG" | "USER";
  label: string;
  scopes: readonly string[];
  sensitive: boolean;
}

/** "Organisation", "Personal (USER)" or "Partner". */
export function kindLabel(key: Pick<ApiKeySummary, "kind">): string {
  return key.kind === "ORG" ? "Organisation" : key.kind === "USER" ? "Personal (USER)" : "Partner";
}

/** `cr_live_ · ORG` */
export const FamilyKind: FC<{ k: ApiKeySummary }> = ({ k }) => (
  <span>
    <code>{`${k.family}_`}</code> {kindLabel(k)}
  </span>
);

/** Active keys with their actions. `manage(k)` says whether the viewer may rotate/revoke it. */
export const ActiveKeysTable: FC<{
  keys: ApiKeySummary[];
  timezone: string;
  manage: (k: ApiKeySummary) => boolean;
  tableId: string;
}> = ({ keys, timezone, manage, tableId }) =>
  keys.length === 0 ? (
    <div class="empty">No active keys.</div>
  ) : (
    <div class="table-wrap">
      <table id={tableId}>
        <thead>
          <tr>
            <th>Label</th>
            <th>Prefix</th>
            <th>Family and kind</th>
            <th>Scopes</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Last sensitive access</th>
            <th>Status</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr data-prefix={k.prefix}>
              <td>{k.label}</td>
              <td>
                <code>{displayPrefix(k.family, k.prefix)}</code>
              </td>
              <td>
                <FamilyKind k={k} />
              </td>
              <td>
                <ScopeChips scopes={k.scopes} />
              </td>
              <td>
                <When at={k.createdAt} timezone={timezone} />
              </td>
              <td>
                <When at={k.lastUsedAt} timezone={timezone} />
              </td>
              <td>
                {k.scopes.includes("READ_SENSITIVE") ? (
                  <When at={k.lastSensitiveAccessAt} timezone={timezone} />
                ) : (
                  <span class="muted" title="This key does not hold READ_SENSITIVE">
                    n/a
                  </span>
                )}
              </td>
              <td>
                <span class="chip ok">active</span>
              </td>
              <td>
                <a class="button small secondary" href={`/settings/keys/${k.prefix}/audit`}>
                  Audit
                </a>{" "}
                {manage(k) && k.family === "cr_live" ? (
                  <a class="button small secondary" href={`/settings/keys/${k.prefix}/rotate`}>
                    Rotate
                  </a>
                ) : null}{" "}
                {manage(k) ? (
                  <a class="button small danger" href={`/settings/keys/${k.prefix}/revoke`}>
                    Revoke
                  </a>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

/** Revoked keys keep their prefix and label (spec), with when and, if rotated, by what. */
export const RevokedKeysTable: FC<{
  keys: ApiKeySummary[];
  timezone: string;
  prefixById: Map<string, string>;
}> = ({ keys, timezone, prefixById }) =>
  keys.length === 0 ? (
    <div class="empty">No revoked keys.</div>
  ) : (
    <div class="table-wrap">
      <table id="revoked-keys">
        <thead>
          <tr>
            <th>Label</th>
            <th>Prefix</th>
            <th>Family and kind</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Revoked</th>
            <th>Replaced by</th>
            <th>Audit</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => {
            const replacement = k.replacedByKeyId ? prefixById.get(k.replacedByKeyId) : undefined;
            return (
              <tr data-prefix={k.prefix}>
                <td>{k.label}</td>
                <td>
                  <code>{displayPrefix(k.family, k.prefix)}</code>
                </td>
                <td>
                  <FamilyKind k={k} />
                </td>
                <td>
                  <When at={k.createdAt} timezone={timezone} />
                </td>
                <td>
                  <When at={k.lastUsedAt} timezone={timezone} />
                </td>
                <td>
                  <When at={k.revokedAt} timezone={timezone} />
                </td>
                <td>{replacement ? <code>{replacement}</code> : <span class="muted">—</span>}</td>
                <td>
                  <a href={`/settings/keys/${k.prefix}/audit`}>Audit</a>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );

const CreateKeyPanel: FC<{
  view: WebView;
  canManageOrgKeys: boolean;
  form?: CreateKeyForm | undefined;
}> = ({ view, canManageOrgKeys, form }) => {
  const kind = canManageOrgKeys ? (form?.kind ?? "ORG") : "USER";
  const picked = new Set(form?.scopes ?? []);
  return (
    <div class="panel">
      <h2>Create a key</h2>
      <form method="post" action="/settings/keys" id="create-key">
        <CsrfField token={view.csrfToken} orgId={view.org?.id} />
        <fieldset>
          <legend>Kind</legend>
          <label class="check">
            <input
              type="radio"
              name="kind"
              value="ORG"
              checked={kind === "ORG"}
              disabled={!canManageOrgKeys}
            />
            Organisation key (<code>cr_live_</code>): reads this organisation; can be rotated
          </label>
          <label class="check">
            <input type="radio" name="kind" value="USER" checked={kind === "USER"} />
            Personal key (<code>crun_</code>): reads every organisation you belong to; yours alone
          </label>
        </fieldset>
        <label for="label">Label</label>
        <input
          id="label"
          name="label"
          type="text"
          maxlength={200}
          required
          placeholder="e.g. MCP server — finance assistant"
          value={form?.label ?? ""}
        />
        <fieldset>
          <legend>Scopes</legend>
          <div class="scopes">
            {PICKABLE_SCOPES.map((s) => (
              <label class="check" title={SCOPE_HELP[s]}>
                <input type="checkbox" name="scopes" value={s} checked={picked.has(s)} />
                <span>
                  <code>{s}</code> <span class="muted">{SCOPE_HELP[s]}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <div class="danger-zone">
          <label class="check">
            <input
              type="checkbox"
              name="sensitive"
              value="on"
              id="include-sensitive"
              checked={form?.sensitive ?? false}
            />
            <span>
              <span class="chip sensitive">Danger zone</span>{" "}
              <strong>Include sensitive data</strong> (<code>READ_SENSITIVE</code>): the key sees
              the accounts and contacts flagged sensitive (wages, equity, director loans). Off by
              default; it can never be added to an existing key.
            </span>
          </label>
        </div>
        <p>
          <button type="submit">Create key</button>
        </p>
      </form>
    </div>
  );
};

/** Settings → API keys. */
export const KeysPage: FC<{
  view: WebView;
  org: CurrentOrg;
  canManageOrgKeys: boolean;
  orgKeys: ApiKeySummary[];
  userKeys: ApiKeySummary[];
  notice?: string | undefined;
  error?: string | undefined;
  form?: CreateKeyForm | undefined;
}> = ({ view, org, canManageOrgKeys, orgKeys, userKeys, notice, error, form }) => {
  const all = [...orgKeys, ...userKeys];
  const prefixById = new Map(all.map((k) => [k.id, k.prefix]));
  const active = (keys: ApiKeySummary[]) => keys.filter((k) => k.status === "active");
  const manage = (k: ApiKeySummary) =>
    k.kind === "ORG" ? canManageOrgKeys : k.createdByUserId === view.session.userId;
  return (
    <Layout title="API keys" view={view} active="keys">
      <h1>API keys</h1>
      <p class="lead">
        Keys for agents and integrations reading {org.name} through <code>/api/agent</code>. The
        secret is shown once; only a one-way hash is kept. Every request is audited. Times are in{" "}
        {org.timezone}.
      </p>
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <CreateKeyPanel view={view} canManageOrgKeys={canManageOrgKeys} form={form} />
      <h2>Organisation keys</h2>
      <ActiveKeysTable
        keys={active(orgKeys)}
        timezone={org.timezone}
        manage={manage}
        tableId="org-keys"
      />
      <h2>Your personal keys</h2>
      <p class="muted">
        Personal <code>crun_</code> keys have no rotate button: create the replacement, deploy and
        check it, then revoke the old key, so nothing goes down.
      </p>
      <ActiveKeysTable
        keys={active(userKeys)}
        timezone={org.timezone}
        manage={manage}
        tableId="user-keys"
      />
      <h2>Revoked keys</h2>
      <RevokedKeysTable
        keys={all.filter((k) => k.status === "revoked")}
        timezone={org.timezone}
        prefixById={prefixById}
      />
    </Layout>
  );
};

/** The new key, shown once, with a copy button. */
export const KeySecretPage: FC<{
  view: WebView;
  title: string;
  secret: string;
  label: string;
  scopes: readonly string[];
  replacedPrefix?: string | undefined;
  backHref: string;
}> = ({ view, title, secret, label, scopes, replacedPrefix, backHref }) => (
  <Layout title={title} view={view} active="keys">
    <h1>{title}</h1>
    <Notice kind="warn">
      Copy this key now. It is shown only once and cannot be recovered; if you lose it, create a new
      key.
    </Notice>
    {replacedPrefix ? (
      <Notice kind="ok">
        The old key <code>{replacedPrefix}</code> is revoked: it stopped working immediately.
      </Notice>
    ) : null}
    <div class="panel">
      <p>
        <strong>{label}</strong> <ScopeChips scopes={scopes} />
      </p>
      <div class="secret">
        <code id="new-key">{secret}</code>
        <button type="button" data-copy="new-key" hidden data-js-only="">
          Copy
        </button>
      </div>
      <p class="muted">
        Use it as <code>Authorization: Bearer &lt;key&gt;</code>, e.g. in{" "}
        <code>&lt;SERVICE&gt;_API_KEY</code>.
      </p>
    </div>
    <p>
      <a class="button secondary" href={backHref}>
        Done
      </a>
    </p>
  </Layout>
);

/** A confirmation page for an irreversible action on a key (works without script). */
export const ConfirmKeyActionPage: FC<{
  view: WebView;
  k: ApiKeySummary;
  action: "rotate" | "revoke";
  backHref: string;
}> = ({ view, k, action, backHref }) => (
  <Layout title={action === "revoke" ? "Revoke key" : "Rotate key"} view={view} active="keys">
    <h1>{action === "revoke" ? "Revoke this key?" : "Rotate this key?"}</h1>
    <div class="panel">
      <p>
        <strong>{k.label}</strong> <code>{displayPrefix(k.family, k.prefix)}</code>{" "}
        <ScopeChips scopes={k.scopes} />
      </p>
      {action === "revoke" ? (
        <Notice kind="warn">
          Revoking is irreversible. Every agent request with this key will answer 401 from now on.
          The key stays listed among the revoked keys, and its audit trail is kept.
        </Notice>
      ) : (
        <Notice kind="warn">
          A new key with the same label and scopes is issued and shown once; this key is revoked at
          the same instant and stops working immediately.
        </Notice>
      )}
      <form method="post" action={`/settings/keys/${k.prefix}/${action}`} class="inline">
        <CsrfField
          token={view.csrfToken}
          orgId={k.kind === "ORG" ? (k.orgId ?? undefined) : undefined}
        />
        <button type="submit" class={action === "revoke" ? "danger" : undefined} id="confirm">
          {action === "revoke" ? "Revoke key" : "Rotate key"}
        </button>
      </form>{" "}
      <a class="button secondary" href={backHref}>
        Cancel
      </a>
    </div>
  </Layout>
);
