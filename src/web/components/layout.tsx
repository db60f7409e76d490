import type { Child, FC } from "hono/jsx";
import { PARTNER_SCOPES } from "../../domain/scopes.ts";
import { can } from "../../services/web-auth/roles.ts";
import { ASSET_URLS } from "../assets.ts";
import { formatInstant } from "../format.ts";
import { CSRF_FIELD, ORG_FIELD, type WebView } from "../request.ts";

/**
 * The hidden CSRF field every form carries; with `orgId`, also the organisation the form acts on
 * (checked by `verifyCsrf`).
 */
export const CsrfField: FC<{ token: string; orgId?: string | undefined }> = ({ token, orgId }) => (
  <>
    <input type="hidden" name={CSRF_FIELD} value={token} />
    {orgId ? <input type="hidden" name={ORG_FIELD} value={orgId} /> : null}
  </>
);

export type NavKey =
  | "dashboard"
  | "scenarios"
  | "categories"
  | "keys"
  | "sensitive"
  | "partners"
  | "billing"
  | "none";

const NAV: { key: NavKey; href: string; label: string; show: (v: WebView) => boolean }[] = [
  {
    key: "dashboard",
    href: "/",
    label: "Dashboard",
    show: (v) => can(v.org?.role, "dashboard.view"),
  },
  {
    key: "scenarios",
    href: "/settings/scenarios",
    label: "Scenarios",
    show: (v) => can(v.org?.role, "dashboard.view"),
  },
  {
    key: "keys",
    href: "/settings/keys",
    label: "API keys",
    show: (v) => can(v.org?.role, "keys.view"),
  },
  {
    key: "categories",
    href: "/settings/categories",
    label: "Categories",
    show: (v) => can(v.org?.role, "sensitive.view"),
  },
  {
    key: "sensitive",
    href: "/settings/sensitive",
    label: "Sensitive data",
    show: (v) => can(v.org?.role, "sensitive.view"),
  },
  { key: "partners", href: "/settings/partners", label: "Partners", show: () => true },
  {
    key: "billing",
    href: "/settings/billing",
    label: "Billing",
    show: (v) => can(v.org?.role, "billing.view"),
  },
];

/** Top bar: sections the role may see, the organisation switcher, the user and sign-out. */
const TopBar: FC<{ view: WebView; active: NavKey }> = ({ view, active }) => (
  <header class="top">
    <div class="bar">
      <a class="brand" href="/">
        Cash Runway
      </a>
      <nav aria-label="Sections">
        {NAV.filter((n) => n.show(view)).map((n) => (
          <a href={n.href} class={n.key === active ? "active" : undefined}>
            {n.label}
          </a>
        ))}
      </nav>
      <div class="who">
        {view.memberships.length > 1 ? (
          <form method="post" action="/settings/org" class="inline">
            <CsrfField token={view.csrfToken} />
            <input type="hidden" name="next" value={view.path} />
            <label class="check" for="org-switch">
              <span class="muted">Organisation</span>
              <select id="org-switch" name="orgId" data-autosubmit="">
                {view.memberships.map((m) => (
                  <option value={m.orgId} selected={m.orgId === view.org?.id}>
                    {m.orgName} ({m.role})
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="small secondary" data-no-js="">
              Switch
            </button>
          </form>
        ) : view.org ? (
          <span>
            {view.org.name} <span class="muted">({view.org.role})</span>
          </span>
        ) : null}
        <span class="muted">{view.session.email}</span>
        <form method="post" action="/settings/logout" class="inline">
          <CsrfField token={view.csrfToken} />
          <button type="submit" class="link small">
            Sign out
          </button>
        </form>
      </div>
    </div>
  </header>
);

/** The page frame. Without a view (sign-in, errors when signed out) there is no top bar. */
export const Layout: FC<{
  title: string;
  view?: WebView | null;
  active?: NavKey;
  children?: Child;
}> = ({ title, view, active = "none", children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${title} · Cash Runway`}</title>
      <link rel="stylesheet" href={ASSET_URLS.css} />
      <script src={ASSET_URLS.js} defer></script>
    </head>
    <body>
      {view ? <TopBar view={view} active={active} /> : null}
      <main>{children}</main>
      <footer>Cash Runway settings · read-only agent API at /api/agent</footer>
    </body>
  </html>
);

/** A one-line message above a page's content. */
export const Notice: FC<{ kind: "ok" | "error" | "warn"; children?: Child }> = ({
  kind,
  children,
}) => (
  <div class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
    {children}
  </div>
);

/**
 * A chip per scope; READ_SENSITIVE stands out. On a partner key (`partner`) the fixed set of
 * partner scopes is one chip, which a title spells out, so tables stay readable.
 */
export const ScopeChips: FC<{ scopes: readonly string[]; partner?: boolean }> = ({
  scopes,
  partner = false,
}) => {
  const base = PARTNER_SCOPES.filter((s) => s !== "READ_SENSITIVE");
  const rest = scopes.filter((s) => !base.includes(s as (typeof base)[number]));
  if (
    partner &&
    base.every((s) => scopes.includes(s)) &&
    rest.every((s) => s === "READ_SENSITIVE")
  ) {
    return (
      <span>
        <span class="chip" title={base.join(", ")}>
          {`${base.length} partner scopes`}
        </span>
        {rest.length > 0 ? <span class="chip sensitive">READ_SENSITIVE</span> : null}
      </span>
    );
  }
  return (
    <span>
      {scopes.map((s) => (
        <span class={s === "READ_SENSITIVE" ? "chip sensitive" : "chip"}>{s}</span>
      ))}
    </span>
  );
};

/** An instant as date and time that wrap only between the two (never inside the date). */
export const When: FC<{ at: string | Date | null | undefined; timezone: string }> = ({
  at,
  timezone,
}) => {
  const text = formatInstant(at, timezone);
  const [date, time] = text.split(" ");
  return time ? (
    <span>
      <span class="nowrap">{date}</span> <span class="nowrap">{time}</span>
    </span>
  ) : (
    <span>{text}</span>
  );
};
