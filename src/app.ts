import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { createApi } from "./http/api.ts";
import type { AppDeps, AppEnv } from "./http/env.ts";
import { onError } from "./http/errors.ts";
import { allowedMethodsOf, notServed } from "./http/method-not-allowed.ts";
import { carriesRequestId } from "./http/request-id.ts";
import { registerAgentApi } from "./http/routes/agent/index.ts";
import { lazyChild } from "./logger.ts";
import { registerWeb } from "./web/index.tsx";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The whole HTTP application, without listen(): tests call `app.request()`. */
export function createApp(deps: AppDeps) {
  const app = createApi();

  // Request id: honour a sane incoming X-Request-Id, else mint one; echo it on every response.
  app.use("*", async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    c.set("logger", lazyChild(deps.logger, { requestId }));
    const started = performance.now();
    await next();
    // The agent API's responses (successes, errors, 401, not found) are built with the id among
    // their headers (request-id.ts); anything else (web pages, the OpenAPI document, health) gets
    // it here, which makes Hono copy that response once.
    if (!carriesRequestId(c.res)) c.header("X-Request-Id", requestId);
    if (!deps.logger.isLevelEnabled("info")) return;
    // The path only, never the query string or headers: nothing secret reaches the log.
    deps.logger.info(
      {
        requestId,
        method: c.req.method,
        path: c.req.path,
        route: c.get("routeTemplate"),
        status: c.res.status,
        keyPrefix: c.get("key")?.prefix,
        ms: Math.round((performance.now() - started) * 100) / 100,
      },
      "request",
    );
  });

  app.get("/healthz", (c) => c.json({ ok: true }));
  registerAgentApi(app, deps);
  registerWeb(app, deps);

  // A path that exists for other methods answers 405 with Allow (after authentication on the
  // agent API, like a 404, so routes cannot be enumerated without a key).
  const allowedMethods = allowedMethodsOf(app.routes);
  app.notFound((c: Context<AppEnv>) => notServed(c, allowedMethods(c.req.path)));
  app.onError(onError);
  return app;
}

export type App = ReturnType<typeof createApp>;
