import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Api } from "../http/api.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ServiceError } from "../services/errors.ts";
import { APP_CSS, APP_JS } from "./assets.ts";
import { type DashboardSources, defaultDashboardSources } from "./data/dashboard.ts";
import type { WebDeps } from "./deps.ts";
import { ErrorPage } from "./pages/error.tsx";
import { renderPage } from "./render.ts";
import { loadWebView, refuseNul, type WebContext, WebError, WebRedirect } from "./request.ts";
import { registerAuthRoutes } from "./routes/auth.tsx";
import { registerCategoryRoutes } from "./routes/categories.tsx";
import { registerDashboardRoutes } from "./routes/dashboard.tsx";
import { registerKeyRoutes } from "./routes/keys.tsx";
import { registerPartnerRoutes } from "./routes/partners.tsx";
import { registerScenarioRoutes } from "./routes/scenarios.tsx";
import { registerSettingsRoutes } from "./routes/settings.tsx";

/** Optional overrides, e.g. the forecast and brief sources once those issues land. */
export interface WebOptions {
  dashboard?: Partial<DashboardSources>;
}

/**
 * No inline script or style, no third-party origin: the page can only load its own assets and
 * post forms to itself, and cannot be framed (clickjacking on the revoke button).
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  c.header("Content-Security-Policy", CSP);
  c.header("X-Frame-Options", "DENY");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  // Pages show keys, balances and names: never kept by a shared cache or the back button.
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
};

async function renderError(c: WebContext, deps: WebDeps, err: Error): Promise<Response> {
  if (err instanceof WebRedirect) return c.redirect(err.location, 303);
  let status: 400 | 401 | 403 | 404 | 409 | 429 | 500 = 500;
  let title = "Something went wrong";
  let message = `Unexpected error (request ${c.get("requestId")}).`;
  if (err instanceof WebError) {
    status = err.status;
    title = err.title;
    message = err.message;
  } else if (err instanceof ServiceError && err.status < 500) {
    status =
      err.status === 429
        ? 429
        : err.status === 401
          ? 401
          : err.status === 403
            ? 403
            : err.status === 404
              ? 404
              : 400;
    title = status === 404 ? "Not found" : "Not possible";
    message = err.message;
  } else {
    c.get("logger").error({ err, requestId: c.get("requestId") }, "web error");
  }
  let view = null;
  try {
    view = status === 401 ? null : await loadWebView(c, deps.db, deps.clock.now());
  } catch {
    // The error page must render even when the database is what failed.
  }
  return renderPage(
    c,
    <ErrorPage view={view} title={title} message={message} signIn={status === 401} />,
    status,
  );
}

/**
 * Mounts the settings screen (`/settings/...`) and the dashboard (`/`) on the app. Middleware
 * is registered on those paths only: `/api/agent/*` is untouched.
 */
export function registerWeb(app: Api, deps: AppDeps, opts: WebOptions = {}): void {
  const webDeps: WebDeps = {
    db: deps.database.db,
    clock: deps.clock,
    logger: deps.logger,
    dashboard: { ...defaultDashboardSources, ...opts.dashboard },
    keyCache: deps.keyCache,
  };
  const web = new Hono<AppEnv>();
  for (const path of ["/", "/settings", "/settings/*"]) {
    web.use(path, securityHeaders);
    web.use(path, async (c, next) => {
      refuseNul(Object.values(c.req.queries()));
      await next();
    });
  }
  web.use(
    "/settings/*",
    bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.text("Request body too large.", 413) }),
  );

  web.get("/settings/assets/app.css", (c) => {
    c.header("Cache-Control", "public, max-age=86400");
    return c.body(APP_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
  });
  web.get("/settings/assets/app.js", (c) => {
    c.header("Cache-Control", "public, max-age=86400");
    return c.body(APP_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });

  registerAuthRoutes(web, webDeps);
  registerDashboardRoutes(web, webDeps);
  registerKeyRoutes(web, webDeps);
  registerSettingsRoutes(web, webDeps);
  registerPartnerRoutes(web, webDeps);
  registerScenarioRoutes(web, webDeps);
  registerCategoryRoutes(web, webDeps);

  web.all("/settings/*", () => {
    throw new WebError(404, "Not found", "There is no such page.");
  });
  web.onError((err, c) => renderError(c, webDeps, err));
  app.route("/", web);
}
