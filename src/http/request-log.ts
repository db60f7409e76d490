import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { type Logger, lazyChild } from "../logger.ts";
import type { AppEnv } from "./env.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Starts a request's observation: its id (a sane incoming `X-Request-Id` is honoured, else one is
 * minted) and its logger, both set on the context. Returns when it started, for `logRequest`.
 */
export function beginRequest(c: Context<AppEnv>, logger: Logger): number {
  const incoming = c.req.header("x-request-id");
  const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  c.set("requestId", requestId);
  c.set("logger", lazyChild(logger, { requestId }));
  return performance.now();
}

/**
 * The request's one log line (info): the path only, never the query string or headers, so
 * nothing secret reaches the log.
 */
export function logRequest(c: Context<AppEnv>, logger: Logger, started: number, status: number) {
  if (!logger.isLevelEnabled("info")) return;
  logger.info(
    {
      requestId: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      route: c.get("routeTemplate"),
      status,
      keyPrefix: c.get("key")?.prefix,
      ms: Math.round((performance.now() - started) * 100) / 100,
    },
    "request",
  );
}

/**
 * Request id and log line for every request outside the agent API, whose handler does both
 * itself (routes/agent/dispatch.ts).
 */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = beginRequest(c, logger);
    await next();
    c.header("X-Request-Id", c.get("requestId"));
    logRequest(c, logger, started, c.res.status);
  };
}
