import type { Hono } from "hono";
import type { AppEnv } from "../../http/env.ts";
import { listUserMemberships } from "../../services/web-auth/memberships.ts";
import {
  createSession,
  endSession,
  loadSession,
  setSessionOrg,
} from "../../services/web-auth/sessions.ts";
import { signIn } from "../../services/web-auth/sign-in.ts";
import { isWellFormedToken, newRandomToken, tokensMatch } from "../../services/web-auth/tokens.ts";
import type { WebDeps } from "../deps.ts";
import { LoginPage } from "../pages/login.tsx";
import { renderPage } from "../render.ts";
import {
  CSRF_FIELD,
  clearLoginCsrfCookie,
  clearSessionCookie,
  clientAddress,
  isCrossSite,
  loadWebView,
  readForm,
  readLoginCsrfCookie,
  readSessionCookie,
  requireView,
  safeNext,
  setLoginCsrfCookie,
  setSessionCookie,
  verifyCsrf,
  type WebContext,
  WebError,
} from "../request.ts";

/** The sign-in form's CSRF value: the browser's existing cookie (other tabs keep working) or a new one. */
function loginCsrf(c: WebContext): string {
  const existing = readLoginCsrfCookie(c);
  const token = isWellFormedToken(existing) ? existing : newRandomToken();
  setLoginCsrfCookie(c, token);
  return token;
}

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return `${m} minute${m === 1 ? "" : "s"}`;
}

/** Sign-in, sign-out and the organisation switch. */
export function registerAuthRoutes(web: Hono<AppEnv>, deps: WebDeps): void {
  web.get("/settings/login", async (c) => {
    const next = safeNext(c.req.query("next"));
    if (await loadWebView(c, deps.db, deps.clock.now())) return c.redirect(next, 303);
    const notice = c.req.query("signedOut") === "1" ? "You are signed out." : undefined;
    return renderPage(c, <LoginPage csrfToken={loginCsrf(c)} next={next} notice={notice} />);
  });

  web.post("/settings/login", async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.get("next"));
    const email = (form.get("email") ?? "").slice(0, 320);
    const cookieToken = readLoginCsrfCookie(c);
    if (
      isCrossSite(c) ||
      !isWellFormedToken(cookieToken) ||
      !tokensMatch(cookieToken, form.get(CSRF_FIELD))
    ) {
      return renderPage(
        c,
        <LoginPage
          csrfToken={loginCsrf(c)}
          next={next}
          email={email}
          error="The sign-in form expired or could not be verified. Try again."
        />,
        403,
      );
    }
    const now = deps.clock.now();
    const result = await signIn(deps.db, {
      email,
      password: form.get("password") ?? "",
      ip: clientAddress(c),
      now,
    });
    if (!result.ok) {
      const locked = result.reason === "locked";
      c.get("logger").info({ outcome: result.reason }, "web sign-in refused");
      if (locked) c.header("Retry-After", String(result.retryAfterSeconds));
      return renderPage(
        c,
        <LoginPage
          csrfToken={loginCsrf(c)}
          next={next}
          email={email}
          error={
            locked
              ? `Too many failed sign-in attempts. Try again in ${minutes(result.retryAfterSeconds)}.`
              : "Email or password is incorrect."
          }
        />,
        locked ? 429 : 401,
      );
    }
    // A session the browser already had is ended: the new one never reuses a presented token.
    const previous = await loadSession(deps.db, readSessionCookie(c), now);
    if (previous) await endSession(deps.db, previous.tokenDigest);
    const memberships = await listUserMemberships(deps.db, result.userId);
    const session = await createSession(deps.db, {
      userId: result.userId,
      orgId: memberships[0]?.orgId ?? null,
      now,
    });
    setSessionCookie(c, session.token);
    clearLoginCsrfCookie(c);
    c.get("logger").info({ userId: result.userId }, "web sign-in");
    return c.redirect(next, 303);
  });

  web.post("/settings/logout", async (c) => {
    const view = await loadWebView(c, deps.db, deps.clock.now());
    if (!view) {
      clearSessionCookie(c);
      return c.redirect("/settings/login", 303);
    }
    verifyCsrf(c, view, await readForm(c));
    await endSession(deps.db, view.session.tokenDigest);
    clearSessionCookie(c);
    return c.redirect("/settings/login?signedOut=1", 303);
  });

  web.post("/settings/org", async (c) => {
    const view = await requireView(c, deps.db, deps.clock.now());
    const form = await readForm(c);
    verifyCsrf(c, view, form);
    const orgId = form.get("orgId");
    const membership = view.memberships.find((m) => m.orgId === orgId);
    if (!membership) {
      throw new WebError(403, "Not allowed", "You are not a member of that organisation.");
    }
    await setSessionOrg(deps.db, view.session.tokenDigest, membership.orgId);
    return c.redirect(safeNext(form.get("next")), 303);
  });
}
