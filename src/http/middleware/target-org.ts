import type { MiddlewareHandler } from "hono";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../domain/clock.ts";
import { resolveTargetOrg } from "../../services/keys/resolve-target-org.ts";
import type { AppEnv } from "../env.ts";

/**
 * Resolves the organisation the request reads and sets the ServiceContext (`c.set("ctx")`).
 * `nested`: the organisation comes from the `{orgId}` path segment and must be within the key's
 * reach; flat: see `resolveTargetOrg`. Refusals are thrown as ServiceErrors (400/403).
 */
export function targetOrg(
  deps: { db: Db; clock: Clock },
  opts: { nested: boolean },
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.get("key");
    // authenticate() runs first on every agent path; reaching here without a key is a wiring bug.
    if (!key) throw new Error("targetOrg middleware ran before authentication");
    const pathOrgId = opts.nested ? (c.req.param("orgId") ?? "") : undefined;
    const org = await resolveTargetOrg(deps.db, key, pathOrgId);
    c.set("ctx", {
      db: deps.db,
      now: deps.clock.now(),
      org,
      actor: { type: "apiKey", key },
      scopes: key.scopes,
    });
    await next();
  };
}
