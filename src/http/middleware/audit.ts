import type { MiddlewareHandler } from "hono";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../domain/clock.ts";
import { hasScope } from "../../domain/scopes.ts";
import { type AuditWriter, immediateAuditWriter } from "../../services/audit/audit-writer.ts";
import type { AppEnv } from "../env.ts";
import { errorBody } from "../errors.ts";
import { jsonWithId } from "../request-id.ts";

/** Audit `route` of an authenticated request that matched no route. */
export const UNMATCHED_ROUTE = "(unmatched)";

/**
 * Wraps everything after authentication: once the handler (or any later pipeline step, or the
 * not-found handler) has produced the response, hands one audit row (which also stamps the key's
 * last-used times) to the writer, and only then lets the response go. With the default writer the
 * row is committed first (one round trip; tests observe it deterministically); the server uses a
 * BatchedAuditWriter, which buffers it. Should the writer refuse, the response becomes a 500.
 */
export function auditTrail(deps: {
  db: Db;
  clock: Clock;
  /** Defaults to committing each row before the response (see BatchedAuditWriter for the server). */
  writer?: AuditWriter;
}): MiddlewareHandler<AppEnv> {
  const writer = deps.writer ?? immediateAuditWriter(deps.db);
  return async (c, next) => {
    const key = c.get("key");
    if (!key) return next();
    const started = deps.clock.now();
    await next();
    const ctx = c.get("ctx");
    try {
      await writer.write({
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
      c.res = jsonWithId(c, errorBody("internal_error", "Unexpected error.", { requestId }), 500);
    }
  };
}
