import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/**
 * Names the endpoint for audit, logs and metering by its flat template (e.g.
 * `/api/agent/contacts/{id}`), so the flat and `/orgs/{orgId}/…` forms count as one endpoint and
 * no raw URL (ids, query strings) is recorded. First in each route's chain, so even refusals by
 * later steps are attributed.
 */
export function routeTemplate(template: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("routeTemplate", template);
    await next();
  };
}
