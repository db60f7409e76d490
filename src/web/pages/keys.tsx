import type { FC } from "hono/jsx";
import { SCOPES, type Scope } from "../../domain/scopes.ts";
import type { GovernedKey, OrgKeyReach, RevokedFor } from "../../services/keys/govern-keys.ts";
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

/**
 * Revoked keys keep their prefix and label (spec), with when and, if rotated, by what. Keys
 * revoked only for this organisation (`revokedHere`: key id to instant) say so.
 */
export const RevokedKeysTable: FC<{
  keys: ApiKeySummary[];
  timezone: string;
  prefixById: Map<string, string>;
  revokedHere?: Map<string, string>;
  orgName?: string;
}> = ({ keys, timezone, prefixById, revokedHere = new Map(), orgName = "" }) =>
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
                  {k.status === "revoked" ? (
                    <When at={k.revokedAt} timezone={timezone} />
                  ) : (
                    <span>
                      <When at={revokedHere.get(k.id)} timezone={timezone} />{" "}
                      <span class="muted">for {orgName} only</span>
                    </span>
                  )}
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

/**
 * Who may tick "Include sensitive data" here: organisation keys need `keys.manage` (owners and
 * admins); personal keys need `keys.sensitive` (owners and admins) and an organisation that does
 * not restrict READ_SENSITIVE to organisation keys. `personalRefusal` says why not, or is null.
 */
export interface SensitiveRule {
  org: boolean;
  personalRefusal: string | null;
}

const CreateKeyPanel: FC<{
  view: WebView;
  canManageOrgKeys: boolean;
  sensitiveRule: SensitiveRule;
  form?: CreateKeyForm | undefined;
}> = ({ view, canManageOrgKeys, sensitiveRule, form }) => {
  const kind = canManageOrgKeys ? (form?.kind ?? "ORG") : "USER";
  const picked = new Set(form?.scopes ?? []);
  const anySensitive = sensitiveRule.org || sensitiveRule.personalRefusal === null;
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
              checked={anySensitive && (form?.sensitive ?? false)}
              disabled={!anySensitive}
            />
            <span>
              <span class="chip sensitive">Danger zone</span>{" "}
              <strong>Include sensitive data</strong> (<code>READ_SENSITIVE</code>): the key sees
              the accounts and contacts flagged sensitive (wages, equity, director loans). Off by
              default; it can never be added to an existing key.
            </span>
          </label>
          <p class="muted" id="sensitive-rule">
            {sensitiveRule.personalRefusal
              ? `${sensitiveRule.org ? "Organisation keys only: " : "Not available to you: "}${sensitiveRule.personalRefusal}`
              : "On a personal key it applies only in organisations where you are an owner or admin."}
          </p>
        </div>
        <p>
          <button type="submit">Create key</button>
        </p>
      </form>
    </div>
  );
};

/** "x@y (admin)", "Ledger & Co, created by x@y" or "Organisation (owner x@y)". */
export function holderText(k: GovernedKey): string {
  if (k.holder === "member") return `${k.creatorEmail} (${k.creatorRole ?? "not a member"})`;
  if (k.holder === "partner")
    return `${k.partnerName ?? k.partnerId}, created by ${k.creatorEmail}`;
  return `Organisation (owner ${k.creatorEmail})`;
}

/** Where a governed key reaches, in words. */
function governedReach(k: GovernedKey, orgNames: Map<string, string>): string {
  if (k.reach === "USER_MEMBERSHIPS") return "Every organisation its holder belongs to";
  if (k.reach === "ALL_LINKED") return "Every organisation linked to the partner (follows links)";
  if (k.reach === "PINNED") {
    return `Pinned: ${(k.pinnedOrgIds ?? []).map((id) => orgNames.get(id) ?? id).join(", ")}`;
  }
  return "This organisation";
}

/** Scopes that apply here, and the one that does not (READ_SENSITIVE) struck through. */
const ScopesHere: FC<{ k: GovernedKey; restricted: boolean }> = ({ k, restricted }) => {
  const dropped = k.scopes.filter((s) => !k.scopesHere.includes(s));
  return (
    <span>
      <ScopeChips scopes={k.scopesHere} partner={k.kind === "PARTNER"} />
      {dropped.map((s) => (
        <span
          class="chip dropped"
          title={
            restricted
              ? "Not here: this organisation allows READ_SENSITIVE only on organisation keys"
              : "Not here: its holder is not an owner or admin of this organisation"
          }
        >
          {s}
        </span>
      ))}
    </span>
  );
};

/**
 * Members' personal keys or partner keys that reach the organisation, for its owner, with a
 * "Revoke here" action (this organisation only; the key keeps its others).
 */
export const GovernedKeysTable: FC<{
  keys: GovernedKey[];
  timezone: string;
  tableId: string;
  restricted: boolean;
  orgNames: Map<string, string>;
  empty: string;
}> = ({ keys, timezone, tableId, restricted, orgNames, empty }) =>
  keys.length === 0 ? (
    <div class="empty">{empty}</div>
  ) : (
    <div class="table-wrap">
      <table id={tableId}>
        <thead>
          <tr>
            <th>Label</th>
            <th>Prefix</th>
            <th>Holder</th>
            <th>Scopes here</th>
            <th>Reach</th>
            <th>Created</th>
            <th>Last used</th>
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
              <td>{holderText(k)}</td>
              <td>
                <ScopesHere k={k} restricted={restricted} />
              </td>
              <td>{governedReach(k, orgNames)}</td>
              <td>
                <When at={k.createdAt} timezone={timezone} />
              </td>
              <td>
                <When at={k.lastUsedAt} timezone={timezone} />
              </td>
              <td>
                {k.statusHere === "stopped" ? (
                  <span>
                    <span class="chip warn">stopped</span>
                    <div class="muted">its creator no longer owns the partner</div>
                  </span>
                ) : (
                  <span class="chip ok">active</span>
                )}
              </td>
              <td>
                <a class="button small danger" href={`/settings/keys/${k.prefix}/revoke-here`}>
                  Revoke here
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

/** The owner's setting: may personal and partner keys use READ_SENSITIVE here? */
const SensitiveSettingPanel: FC<{ view: WebView; org: CurrentOrg }> = ({ view, org }) => (
  <div class="panel" id="sensitive-setting">
    <h2>Sensitive data through personal and partner keys</h2>
    {org.restrictSensitiveToOrgKeys ? (
      <p>
        <span class="chip sensitive">Forbidden</span> Only organisation keys read {org.name}'s
        sensitive accounts and contacts. Members' personal keys and partner keys that carry{" "}
        <code>READ_SENSITIVE</code> read without it here (rows withheld, names redacted) from their
        next request; the keys are not changed, so allowing it again gives it back.
      </p>
    ) : (
      <p>
        <span class="chip ok">Allowed</span> Personal keys of owners and admins, and partner keys,
        may carry <code>READ_SENSITIVE</code> here. A member's personal key never reads sensitive
        data, whatever it carries.
      </p>
    )}
    <form method="post" action="/settings/keys/sensitive-restriction" class="inline">
      <CsrfField token={view.csrfToken} orgId={org.id} />
      <input type="hidden" name="restrict" value={org.restrictSensitiveToOrgKeys ? "off" : "on"} />
      <button type="submit" class="small secondary" id="toggle-sensitive-restriction">
        {org.restrictSensitiveToOrgKeys
          ? "Allow READ_SENSITIVE on personal and partner keys"
          : "Forbid READ_SENSITIVE on personal and partner keys"}
      </button>
    </form>
  </div>
);

/** Every key reaching the organisation, for its owner. */
export interface KeyGovernanceView {
  reach: OrgKeyReach;
  /** Names of the organisations pinned partner keys name. */
  orgNames: Map<string, string>;
}

/** Settings → API keys. */
export const KeysPage: FC<{
  view: WebView;
  org: CurrentOrg;
  canManageOrgKeys: boolean;
  sensitiveRule: SensitiveRule;
  orgKeys: ApiKeySummary[];
  userKeys: (ApiKeySummary & { revokedFor: RevokedFor[] })[];
  /** Owners only: every key that reaches the organisation. */
  governance: KeyGovernanceView | null;
  notice?: string | undefined;
  error?: string | undefined;
  form?: CreateKeyForm | undefined;
}> = ({
  view,
  org,
  canManageOrgKeys,
  sensitiveRule,
  orgKeys,
  userKeys,
  governance,
  notice,
  error,
  form,
}) => {
  const me = view.session.userId;
  const others = (governance?.reach.keys ?? []).filter(
    (k) => k.holder === "partner" || (k.holder === "member" && k.createdByUserId !== me),
  );
  const live = (k: GovernedKey) => k.statusHere === "active" || k.statusHere === "stopped";
  const revokedHere = new Map<string, string>([
    ...userKeys.flatMap((k) =>
      k.revokedFor.filter((r) => r.orgId === org.id).map((r) => [k.id, r.revokedAt] as const),
    ),
    ...others.flatMap((k) => (k.revokedHereAt ? [[k.id, k.revokedHereAt] as const] : [])),
  ]);
  const prefixById = new Map([...orgKeys, ...userKeys, ...others].map((k) => [k.id, k.prefix]));
  const active = (keys: ApiKeySummary[]) => keys.filter((k) => k.status === "active");
  const manage = (k: ApiKeySummary) =>
    k.kind === "ORG" ? canManageOrgKeys : k.createdByUserId === me;
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
      <CreateKeyPanel
        view={view}
        canManageOrgKeys={canManageOrgKeys}
        sensitiveRule={sensitiveRule}
        form={form}
      />
      {governance ? <SensitiveSettingPanel view={view} org={org} /> : null}
      <h2>Organisation keys</h2>
      <ActiveKeysTable
        keys={active(orgKeys)}
        timezone={org.timezone}
        manage={manage}
        tableId="org-keys"
      />
      {governance ? (
        <>
          <h2>Members' personal keys</h2>
          <p class="muted">
            Personal <code>crun_</code> keys of {org.name}'s other members: they read every
            organisation their holder belongs to. "Revoke here" removes {org.name} from a key's
            reach for good; its holder keeps it for their other organisations.
          </p>
          <GovernedKeysTable
            keys={others.filter((k) => k.holder === "member" && live(k))}
            timezone={org.timezone}
            tableId="member-keys"
            restricted={org.restrictSensitiveToOrgKeys}
            orgNames={governance.orgNames}
            empty="No other member holds a personal key."
          />
          <h2>Partner keys</h2>
          <p class="muted">
            Keys of advisory partners linked to {org.name}, reaching it live (every linked
            organisation) or pinned. "Revoke here" removes {org.name} from the key's reach; to cut a
            partner off entirely, unlink it on the Partners page.
          </p>
          <GovernedKeysTable
            keys={others.filter((k) => k.holder === "partner" && live(k))}
            timezone={org.timezone}
            tableId="partner-keys"
            restricted={org.restrictSensitiveToOrgKeys}
            orgNames={governance.orgNames}
            empty="No partner key reaches this organisation."
          />
        </>
      ) : null}
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
        keys={[...orgKeys, ...userKeys, ...others].filter(
          (k) => k.status === "revoked" || revokedHere.has(k.id),
        )}
        timezone={org.timezone}
        prefixById={prefixById}
        revokedHere={revokedHere}
        orgName={org.name}
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
  action: "rotate" | "revoke" | "revoke-here";
  backHref: string;
  /** revoke-here: the organisation, and the key's holder in words. */
  here?: { org: CurrentOrg; holder: string };
}> = ({ view, k, action, backHref, here }) => (
  <Layout title={action === "rotate" ? "Rotate key" : "Revoke key"} view={view} active="keys">
    <h1>
      {action === "rotate"
        ? "Rotate this key?"
        : action === "revoke-here" && k.kind !== "ORG"
          ? `Revoke this key for ${here?.org.name ?? "this organisation"}?`
          : "Revoke this key?"}
    </h1>
    <div class="panel">
      <p>
        <strong>{k.label}</strong> <code>{displayPrefix(k.family, k.prefix)}</code>{" "}
        <ScopeChips scopes={k.scopes} />
      </p>
      {here ? <p class="muted">Holder: {here.holder}</p> : null}
      {action === "revoke-here" && k.kind !== "ORG" ? (
        <Notice kind="warn">
          {here?.org.name} is removed from this key's reach, irreversibly: its requests to{" "}
          {here?.org.name} answer 403 from now on, even if its holder rejoins or the partner is
          linked again. The key keeps working for its holder's other organisations, which are not
          yours to decide; its holder can revoke it everywhere. Its audit trail is kept.
        </Notice>
      ) : action !== "rotate" ? (
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
          orgId={
            action === "revoke-here"
              ? here?.org.id
              : k.kind === "ORG"
                ? (k.orgId ?? undefined)
                : undefined
          }
        />
        <button type="submit" class={action !== "rotate" ? "danger" : undefined} id="confirm">
          {action === "rotate"
            ? "Rotate key"
            : action === "revoke-here" && k.kind !== "ORG"
              ? `Revoke for ${here?.org.name ?? "this organisation"}`
              : "Revoke key"}
        </button>
      </form>{" "}
      <a class="button secondary" href={backHref}>
        Cancel
      </a>
    </div>
  </Layout>
);
