import { getConnInfo } from "@hono/node-server/conninfo";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Db } from "../db/client.ts";
import { organisations, type Role } from "../db/schema/index.ts";
import type { AppEnv } from "../http/env.ts";
import { listUserMemberships, type UserMembership } from "../services/web-auth/memberships.ts";
import { can, type WebAction } from "../services/web-auth/roles.ts";
import { loadSession, type SessionView, setSessionOrg } from "../services/web-auth/sessions.ts";
import { tokensMatch } from "../services/web-auth/tokens.ts";

/** The session cookie: an opaque random token (its SHA-256 is the session's key). */
export const SESSION_COOKIE = "cr_session";
/** The sign-in form's double-submit CSRF cookie (there is no session yet to hold a token). */
export const LOGIN_CSRF_COOKIE = "cr_login_csrf";
/** The hidden field every form carries. */
export const CSRF_FIELD = "_csrf";
/**
 * The hidden field of a form that acts on the current organisation: the organisation it was
 * shown for. If another tab has switched organisation since, the post is refused (409) instead of
 * acting on the organisation now selected.
 */
export const ORG_FIELD = "_org";

/** A request context of the web routes (the app's own variables: request id, logger). */
export type WebContext = Context<AppEnv>;

/** Thrown by guards and handlers; the web error handler renders it as a page with `status`. */
export class WebError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 429,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown to answer with a 303 redirect (e.g. to the sign-in page). */
export class WebRedirect extends Error {
  constructor(readonly location: string) {
    super(`redirect to ${location}`);
  }
}

/**
 * Served over TLS: the URL is https, or a proxy in front says so. Trusting the header is safe
 * here: a client that lies only makes its own cookie Secure.
 */
export function isSecureRequest(c: WebContext): boolean {
  const forwarded = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded === "https") return true;
  return new URL(c.req.url).protocol === "https:";
}

/**
 * The client's address for the sign-in lockout: the socket's peer. X-Forwarded-For is not
 * trusted (a client could rotate it to escape the per-address count); behind a proxy every
 * client shares the proxy's address, and the per-email count still holds.
 */
export function clientAddress(c: WebContext): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    // `app.request()` in tests has no socket.
    return "unknown";
  }
}

function cookieBase(c: WebContext) {
  return { httpOnly: true, sameSite: "Lax", secure: isSecureRequest(c), path: "/" } as const;
}

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site
 * POSTs), Secure over TLS, and without Max-Age: it ends with the browser, and the server ends
 * it sooner (idle and absolute timeouts).
 */
export function setSessionCookie(c: WebContext, token: string): void {
  setCookie(c, SESSION_COOKIE, token, cookieBase(c));
}

/** Removes the session cookie (sign-out), with the attributes it was set with. */
export function clearSessionCookie(c: WebContext): void {
  deleteCookie(c, SESSION_COOKIE, cookieBase(c));
}

/** The sign-in form's double-submit token: HttpOnly, only sent to the sign-in path, one hour. */
export function setLoginCsrfCookie(c: WebContext, token: string): void {
  setCookie(c, LOGIN_CSRF_COOKIE, token, {
    ...cookieBase(c),
    path: "/settings/login",
    maxAge: 3600,
  });
}

/** Removes the sign-in form's token once signed in. */
export function clearLoginCsrfCookie(c: WebContext): void {
  deleteCookie(c, LOGIN_CSRF_COOKIE, { ...cookieBase(c), path: "/settings/login" });
}

/** The session token the browser sent, if any (validated by `loadSession`). */
export function readSessionCookie(c: WebContext): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

/** The sign-in form's token cookie, if any. */
export function readLoginCsrfCookie(c: WebContext): string | undefined {
  return getCookie(c, LOGIN_CSRF_COOKIE);
}

/**
 * A same-site path to return to after sign-in or a switch, or `/`: never another origin
 * (`//evil`, `/\evil`, absolute URLs), so the parameter cannot be an open redirect.
 */
export function safeNext(value: string | undefined | null): string {
  if (!value?.startsWith("/") || value.startsWith("//")) return "/";
  // Printable URL characters only: no backslash, space or control character can sneak in.
  if (!/^[A-Za-z0-9/_.~%?=&#:@!$'()*+,;-]*$/.test(value)) return "/";
  return value;
}

/** The organisation being looked at, with the signed-in user's role there. */
export interface CurrentOrg {
  id: string;
  name: string;
  baseCurrency: string;
  timezone: string;
  billingAccountId: string | null;
  /** READ_SENSITIVE only through organisation keys (the owner's setting). */
  restrictSensitiveToOrgKeys: boolean;
  role: Role;
}

/** Everything a page needs to know about who is asking. */
export interface WebView {
  session: SessionView;
  memberships: UserMembership[];
  /** Null when the user belongs to no organisation (e.g. a partner user). */
  org: CurrentOrg | null;
  csrfToken: string;
  now: Date;
  /** Path and query of this request, to come back to after an organisation switch. */
  path: string;
}

/**
 * The signed-in view of a request, or null without a live session. Memberships are read on
 * every request, so a removed membership takes effect at once; a session pointing at an
 * organisation the user left falls back to their first organisation.
 */
export async function loadWebView(c: WebContext, db: Db, now: Date): Promise<WebView | null> {
  const session = await loadSession(db, readSessionCookie(c), now);
  if (!session) return null;
  const memberships = await listUserMemberships(db, session.userId);
  const current = memberships.find((m) => m.orgId === session.orgId) ?? memberships[0];
  if ((current?.orgId ?? null) !== session.orgId) {
    await setSessionOrg(db, session.tokenDigest, current?.orgId ?? null);
  }
  let org: CurrentOrg | null = null;
  if (current) {
    const [row] = await db
      .select({
        id: organisations.id,
        name: organisations.name,
        baseCurrency: organisations.baseCurrency,
        timezone: organisations.timezone,
        billingAccountId: organisations.billingAccountId,
        restrictSensitiveToOrgKeys: organisations.restrictSensitiveToOrgKeys,
      })
      .from(organisations)
      .where(eq(organisations.id, current.orgId))
      .limit(1);
    if (row) org = { ...row, role: current.role };
  }
  const url = new URL(c.req.url);
  return {
    session,
    memberships,
    org,
    csrfToken: session.csrfToken,
    now,
    path: url.pathname + url.search,
  };
}

/** The view of a signed-in request; otherwise a redirect to the sign-in page (and back). */
export async function requireView(c: WebContext, db: Db, now: Date): Promise<WebView> {
  const view = await loadWebView(c, db, now);
  if (view) return view;
  if (c.req.method === "GET") {
    const url = new URL(c.req.url);
    const next = url.pathname + url.search;
    throw new WebRedirect(
      next === "/" ? "/settings/login" : `/settings/login?next=${encodeURIComponent(next)}`,
    );
  }
  throw new WebError(401, "Signed out", "Your session has ended. Sign in again.");
}

/** The current organisation, or a page saying the user belongs to none. */
export function requireOrg(view: WebView): CurrentOrg {
  if (view.org) return view.org;
  throw new WebError(
    403,
    "No organisation",
    "You are not a member of any organisation. An owner or admin can add you.",
  );
}

/** The current organisation when the user's role there allows `action`; else a 403 page. */
export function requireRight(view: WebView, action: WebAction): CurrentOrg {
  const org = requireOrg(view);
  if (!can(org.role, action)) {
    throw new WebError(
      403,
      "Not allowed",
      `Your role in ${org.name} (${org.role}) does not allow this. See docs/web.md for the rights of each role.`,
    );
  }
  return org;
}

/** A parsed form: single values and repeated values (checkbox groups). */
export interface WebForm {
  get(name: string): string | undefined;
  getAll(name: string): string[];
}

/**
 * Refuses text no field can hold: a NUL character (PostgreSQL's text cannot store one, and no
 * person types one). Every form value and query value of the web routes passes here.
 */
export function refuseNul(values: Iterable<unknown>): void {
  for (const v of values) {
    const list = Array.isArray(v) ? v : [v];
    if (list.some((x) => typeof x === "string" && x.includes("\u0000"))) {
      throw new WebError(400, "Invalid input", "A field holds a NUL character; remove it.");
    }
  }
}

/**
 * Reads an urlencoded or multipart form; files are ignored. A body that cannot be parsed as the
 * form its Content-Type announces (a broken multipart, a multipart without its boundary) is the
 * client's mistake: 400, not a 500 with a stack trace in the log.
 */
export async function readForm(c: WebContext): Promise<WebForm> {
  let body: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    body = await c.req.parseBody({ all: true });
  } catch {
    throw new WebError(
      400,
      "Bad request",
      "The form could not be read (its body does not match its Content-Type). Reload the page and try again.",
    );
  }
  refuseNul(Object.values(body));
  const values = (name: string): string[] => {
    const v = body[name];
    const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
    return list.filter((x): x is string => typeof x === "string");
  };
  return { get: (name) => values(name)[0], getAll: values };
}

/**
 * Cross-site request refusal for a POST: the browser's own provenance headers, when present,
 * must say same origin (Sec-Fetch-Site, else Origin against Host). This backs up the token.
 */
export function isCrossSite(c: WebContext): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = c.req.header("origin");
  if (origin && origin !== "null") {
    const host = c.req.header("host");
    try {
      if (!host || new URL(origin).host !== host) return true;
    } catch {
      return true;
    }
  } else if (origin === "null") {
    return true;
  }
  return false;
}

/**
 * Checks a signed-in form post: same origin, and the `_csrf` field equal (constant time) to the
 * session's token. A form without its token is refused with 403, whatever else it carries.
 * For forms that act on the current organisation use `verifyOrgForm`, which also requires `_org`.
 */
export function verifyCsrf(c: WebContext, view: WebView, form: WebForm): void {
  if (isCrossSite(c) || !tokensMatch(view.csrfToken, form.get(CSRF_FIELD))) {
    throw new WebError(
      403,
      "Form refused",
      "This form could not be verified (missing or stale security token). Reload the page and try again.",
    );
  }
}

/**
 * `verifyCsrf` for a form that acts on the current organisation, which must say which one it was
 * shown for (`_org`, see ORG_FIELD): a form without it is refused (400), and one shown for
 * another organisation than the one now selected (switched in another tab) answers 409. Either
 * way nothing changes. Returns the organisation the form acts on.
 */
export function verifyOrgForm(c: WebContext, view: WebView, form: WebForm): CurrentOrg {
  verifyCsrf(c, view, form);
  const org = requireOrg(view);
  const shownFor = form.get(ORG_FIELD);
  if (shownFor === undefined || shownFor === "") {
    throw new WebError(
      400,
      "Bad request",
      "This form does not say which organisation it acts on. Nothing was changed: reload the page and try again.",
    );
  }
  if (shownFor !== org.id) {
    throw new WebError(
      409,
      "Organisation changed",
      "This form was shown for another organisation than the one now selected (it was changed in another tab). Nothing was changed: reload the page and try again.",
    );
  }
  return org;
}
