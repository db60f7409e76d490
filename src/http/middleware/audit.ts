import type { MiddlewareHandler } from "hono";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../domain/clock.ts";
import { hasScope } from "../../domain/scopes.ts";
import { recordAgentRequest } from "../../services/audit/record-agent-request.ts";
import type { AppEnv } from "../env.ts";
import { errorBody } from "../errors.ts";

/** Audit `route` of an authenticated request that matched no route. */
export const UNMATCHED_ROUTE = "(unmatched)";

/**
 * Wraps everything after authentication: once the handler (or any later pipeline step, or the
 * not-found handler) has produced the response, appends one audit row and stamps the key's
 * last-used times, and only then lets the response go. Awaiting costs one round trip but makes
 * the record durable before the client sees data, and lets tests observe it deterministically.
 * Should the write fail, the response becomes a 500: no data leaves without its audit row.
 */
export function auditTrail(deps: { db: Db; clock: Clock }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.get("key");
    if (!key) return next();
    const started = deps.clock.now();
    await next();
    const ctx = c.get("ctx");
    try {
      await recordAgentRequest(deps.db, {
        keyId: key.id,
        orgId: ctx?.org.id ?? null,
        method: c.req.method,
        route: c.get("routeTemplate") ?? UNMATCHED_ROUTE,
        status: c.res.status,
        sensitive: hasScope(key.scopes, "READ_SENSITIVE"),
        requestId: c.get("requestId"),
        at: ctx?.now ?? started,
      });
    } catch (err) {
      c.get("logger").error({ err, keyPrefix: key.prefix }, "audit write failed");
      const requestId = c.get("requestId");
      c.res = c.json(errorBody("internal_error", "Unexpected error.", { requestId }), 500);
    }
  };
}
